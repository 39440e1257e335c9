// The catalog tables drivers and tools read, as views over tidepool's catalog and
// settings (PostgreSQL 15's column names; an oid is a bigint here):
//
//   pg_namespace   pg_catalog (11) and public (2200)
//   pg_database    the database the client connected to
//   pg_class       each table ('r') and index ('i'): relname, relnamespace, relkind,
//                  relpages, reltuples, relallvisible, relhasindex, relnatts, ...
//   pg_attribute   each table's and index's columns (attnum from 1)
//   pg_index       each index: indexrelid, indrelid, indisunique, indisprimary, indkey
//   pg_type        the built-in types tidepool stores, with PostgreSQL's OIDs
//   pg_settings    every setting: name, setting (in its unit), unit, category,
//                  short_desc, vartype, min_val, max_val, enumvals, boot_val, reset_val
//
// They read a catalog snapshot and the session's settings, so they take the database
// lock in watch mode as the other system views do (system_views.h), and a SELECT over
// one takes what a SELECT over those takes (columns, WHERE, ORDER BY, LIMIT).
#pragma once

#include <string>
#include <string_view>

#include "engine/session/settings.h"
#include "engine/session/system_views.h"
#include "engine/storage/catalog.h"

namespace tp {

bool is_catalog_view(std::string_view name);

// View `name` (is_catalog_view) of `catalog`; `settings` are the session's and
// `database` the name it connected to.
ViewRows read_catalog_view(std::string_view name, const Catalog& catalog, const Settings& settings,
                           const std::string& database);

}  // namespace tp
