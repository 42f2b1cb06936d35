#include "runtime/profile_writer.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace asc {
namespace {

// JSON string contents: escapes what JSON requires.
std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out;
}

// CSV field: quoted when it holds a comma or quote.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_file(const std::string& path, const std::string& text) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) fail(ASC_ERR_RUNTIME, "cannot write the profile file {}", path);
  if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size())
    fail(ASC_ERR_RUNTIME, "cannot write the profile file {}", path);
}

constexpr Pipe kTracks[] = {Pipe::S, Pipe::MTE2, Pipe::V, Pipe::MTE3, Pipe::MTE1, Pipe::M, Pipe::FIX};

}  // namespace

std::string lines_csv(const LaunchReport& report) {
  std::string out = "file,line,cycles,count\n";
  for (const auto& l : report.lines) out += fmt::format("{},{},{},{}\n", csv_field(l.file), l.line, l.cycles, l.count);
  return out;
}

void write_profile(const std::string& dir, const Kernel& kernel, const Platform& platform, const LaunchReport& report) {
  double us_per_cycle = 1.0 / (platform.info.clock_ghz * 1000.0);
  std::string json = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto add = [&](const std::string& event) {
    json += first ? "  " : ",\n  ";
    json += event;
    first = false;
  };
  for (uint32_t b = 0; b < report.blocks; ++b) {
    add(fmt::format(R"({{"name": "process_name", "ph": "M", "pid": {0}, "args": {{"name": "core {0}"}}}})", b));
    for (Pipe p : kTracks)
      add(fmt::format(R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})", b,
                      static_cast<int>(p), pipe_name(p)));
  }
  for (const auto& e : report.events)
    add(fmt::format(
        R"({{"name": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {:.4f}, "dur": {:.4f}, "args": {{"at": "{}"}}}})",
        json_escape(e.op->info().name), e.block, static_cast<int>(e.pipe), e.start * us_per_cycle,
        (e.end - e.start) * us_per_cycle, json_escape(e.op->loc.str())));
  json += "\n]}\n";
  write_file(dir + "/" + kernel.name + ".trace.json", json);
  write_file(dir + "/" + kernel.name + ".lines.csv", lines_csv(report));
}

}  // namespace asc
