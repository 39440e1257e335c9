// The catalog file's two formats, behind Catalog::parse and Catalog::serialize
// (engine/storage/catalog.h). Internal to catalog*.cc.
#pragma once

#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/storage/catalog.h"

namespace tp::catalog_format {

// `catalog file "<origin>" is damaged: <why>`
Error damaged(const std::string& origin, const std::string& why);

// Version 2: JSON (nlohmann-json), catalog_json.cc.
std::string to_json(const Catalog& catalog);
Catalog from_json(const std::string& text, const std::string& origin);

// Version 1: the line-oriented text format of earlier releases (read only),
// catalog_text_v1.cc.
bool is_text_v1(const std::string& text);
Catalog from_text_v1(const std::string& text, const std::string& origin);

// The rules every catalog read from disk must satisfy, whatever its format
// (catalog.cc): ranges, references between relations, unique names, oids and
// relnumbers, statistics that parse, names without zero bytes. Throws
// damaged() naming the relation.
void validate(const Catalog& catalog, const std::string& origin);

// "" when `s` is valid UTF-8, else what is wrong and at which byte.
std::string utf8_problem(std::string_view s);
// `s` with every byte that is not printable ASCII written as \xNN, for messages.
std::string printable(std::string_view s);

}  // namespace tp::catalog_format
