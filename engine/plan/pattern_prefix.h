// The fixed prefix of a LIKE / ILIKE pattern and make_greater_string in the "C"
// collation: what the estimator's prefix_selectivity and the index's LIKE conditions
// (`t LIKE 'abc%'` searched as t >= 'abc' AND t < 'abd') are made of.
//
//   size_t rest = 0;
//   LikePrefix p = pattern_prefix("ab%c", false, rest);   // {"ab", exact false}, rest 2
//   greater_string("ab") == "ac"
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/core/string_types.h"

namespace tp {

// The fixed prefix of a LIKE (ILIKE: up to the first letter, whose case is open) and
// where the pattern's rest starts (`rest_start`).
LikePrefix pattern_prefix(std::string_view pattern, bool case_insensitive, size_t& rest_start);

// The smallest string greater than every string starting with `s` (its last character
// incremented, dropping characters that cannot be, as a UTF-8 database does); none
// when nothing is left.
std::optional<std::string> greater_string(std::string s);

}  // namespace tp
