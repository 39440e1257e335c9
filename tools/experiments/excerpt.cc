// The README's excerpt of REPORT.md (`tidepool experiment excerpt`): written by
// code from a real run, never by hand. Each section marks what belongs in the
// excerpt between <!-- excerpt --> and <!-- /excerpt --> (headline tables and
// sentences, no charts); the excerpt is REPORT.md's "Generated ..." paragraph
// (date, machine, commit, scale) and, per section with marked blocks, its title
// and those blocks.
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/experiments.h"

namespace tp::experiments {

namespace {

const char* const kBlockBegin = "<!-- excerpt -->";
const char* const kBlockEnd = "<!-- /excerpt -->";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("could not read \"" + path + "\"");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string report_excerpt(const std::string& report) {
  std::istringstream in(report);
  std::string line, out, title, blocks;
  bool inside = false;
  auto flush_section = [&] {
    if (!blocks.empty()) out += "#" + title + "\n\n" + blocks;
    blocks.clear();
  };
  while (std::getline(in, line)) {
    if (line == kBlockBegin) {
      inside = true;
    } else if (line == kBlockEnd) {
      inside = false;
      if (!blocks.empty() && blocks.substr(blocks.size() - 2) != "\n\n") blocks += "\n";
    } else if (inside) {
      blocks += line + "\n";
    } else if (line.rfind("## ", 0) == 0) {
      flush_section();
      title = line;  // one level deeper in the README ("## rpc" -> "### rpc")
    } else if (line.rfind("Generated ", 0) == 0 && out.empty() && title.empty()) {
      out = line + "\n\n";
    }
  }
  flush_section();
  if (out.empty() || out.find("\n#") == std::string::npos)
    throw Error("REPORT.md has no \"Generated\" line or no section with an excerpt",
                "run `tidepool experiment all` (or some experiments) first");
  return out;
}

std::string replace_excerpt(const std::string& readme, const std::string& excerpt) {
  const size_t begin = readme.find(kReadmeExcerptBegin);
  const size_t end = readme.find(kReadmeExcerptEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw Error(std::string("the README has no excerpt markers"),
                std::string("it needs a line \"") + kReadmeExcerptBegin + "\" and later a line \"" +
                    kReadmeExcerptEnd + "\"");
  const size_t after_begin = readme.find('\n', begin);
  return readme.substr(0, after_begin + 1) + "\n" + excerpt + readme.substr(end);
}

void write_readme_excerpt(const std::string& report_path, const std::string& readme_path) {
  const std::string readme =
      replace_excerpt(read_file(readme_path), report_excerpt(read_file(report_path)));
  std::ofstream out(readme_path, std::ios::trunc);
  out << readme;
  if (!out) throw Error("could not write \"" + readme_path + "\"");
}

}  // namespace tp::experiments
