#include "cli/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <vector>

#include "cli/commands.h"
#include "cli/did_you_mean.h"
#include "cli/serve.h"
#include "cli/version.h"
#include "oomlens/fleet.h"
#include "oomlens/render.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

// "a, b or c".
std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// A file name for a report in that format, for examples.
std::string ExampleFile(Format format) {
  switch (format) {
    case Format::kText:
    case Format::kGithub: return "oomlens.txt";
    case Format::kMarkdown: return "summary.md";
    case Format::kGitlab: return "gl-code-quality-report.json";
    default: return "oomlens." + FormatName(format);
  }
}

// The long flags of an app and its subcommands ("--format", ...).
void LongFlags(const CLI::App& app, std::vector<std::string>* flags) {
  for (const CLI::Option* option : app.get_options())
    for (const auto& name : option->get_lnames()) flags->push_back("--" + name);
  for (const CLI::App* sub : app.get_subcommands({})) LongFlags(*sub, flags);
}

// " (did you mean '--format'?)" for the first argument that looks like a long flag
// and is none, or "".
std::string UnknownFlagHint(const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> flags;
  LongFlags(app, &flags);
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), arg) == flags.end()) return DidYouMean(arg, flags);
  }
  return "";
}

// --format specs (FORMAT or FORMAT=FILE, "-" for stdout) into o: at most one for
// stdout, each file once. Returns "" or what is wrong.
std::string ReadOutputs(const std::vector<std::string>& specs, Options* o) {
  bool stdout_named = false;
  for (const auto& spec : specs) {
    size_t equals = spec.find('=');
    std::string name = spec.substr(0, equals);
    std::optional<Format> format = ParseFormat(name);
    if (!format) {
      return "--format " + spec + ": unknown format '" + name + "'" + DidYouMean(name, FormatNames()) +
             " (help: one of " + JoinNames(FormatNames()) + ", optionally =FILE)";
    }
    std::string path = equals == std::string::npos ? "-" : spec.substr(equals + 1);
    if (path.empty()) return "--format " + spec + ": no file after '=' (help: --format " + name + "=FILE)";
    if (path != "-") {
      for (const auto& other : o->file_outputs)
        if (other.path == path) return "--format: " + path + " is given twice (help: one format per file)";
      o->file_outputs.push_back(FileOutput{*format, path});
      continue;
    }
    if (stdout_named) {
      return "--format " + spec + ": a second format for stdout (" + FormatName(o->format) +
             " is the first) (help: give one of them a file, e.g. --format " + name + "=" +
             ExampleFile(*format) + ")";
    }
    stdout_named = true;
    o->format = *format;
  }
  o->to_stdout = stdout_named || o->file_outputs.empty();
  return "";
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err, const Console& console) {
  Options o;
  CLI::App app{
      "oomlens: reads the logs of a crashed ML job and says why it ran out of "
      "accelerator memory and what to change.",
      "oomlens"};
  app.set_version_flag("--version", "");  // the line is built only when asked for (it loads the rules)
  app.footer(
      "Examples:\n"
      "  kubectl logs job/train | oomlens          diagnose a log from stdin\n"
      "  oomlens -r logs/ --format github          CI: annotations, exit 1 on an OOM\n"
      "  oomlens explain E0101                     what an error code means\n"
      "  oomlens diff before.log after.log         what changed between two runs\n"
      "Exit: 0 no OOM, 1 OOM found, 2 error. Docs: docs/README.md, 'man oomlens'.");
  app.add_option("files", o.files, "log files to read ('-' or none: stdin)");
  std::vector<std::string> format_specs;
  app.add_option("-f,--format", format_specs,
                 "output format: " + JoinNames(FormatNames()) +
                     " (default text); FORMAT=FILE writes it to FILE, so one run writes several "
                     "(repeatable: --format github --format markdown=summary.md)")
      ->type_name("FORMAT[=FILE]")
      ->allow_extra_args(false);
  std::string color = "auto";
  app.add_option("--color", color,
                 "colour the text output: " + JoinNames(ColorModeNames()) + " (default auto)")
      ->type_name("WHEN");
  app.add_option("--rules", o.rule_dirs, "extra rule folder (repeatable); entries override built-ins by id")
      ->allow_extra_args(false);
  app.add_flag("--no-builtin-rules", o.no_builtin, "use only the --rules folders");
  app.add_option("--chip", o.chip, "accelerator (v4, v5e, v5p, v6e, a100-80 ...) for its memory size");
  app.add_flag("-q,--quiet", o.quiet, "print no warnings, only errors");
  app.add_flag("-r,--recursive", o.inputs.recursive, "read directories recursively (regular files only)");
  app.add_flag("-L,--follow", o.inputs.follow, "with -r, follow symlinks (a loop is walked once)");
  app.add_option("--include", o.inputs.include, "only files (in directories) matching this glob; repeatable")
      ->allow_extra_args(false);
  app.add_option("--exclude", o.inputs.exclude, "skip files (in directories) matching this glob; repeatable")
      ->allow_extra_args(false);
  app.add_option("--host-from-path", o.inputs.host_pattern,
                 "regex whose group 1, matched in a file's path, names its host (default: the file name "
                 "when several files are given)");
  app.add_option("-j,--jobs", o.jobs,
                 "threads: N files at a time, or one file read ahead on a second thread (default: the cores)")
      ->check(CLI::Range(1, 256));
  app.add_option("--fail-on", o.fail_on,
                 "exit 1 on: oom (any incident, default), ended (an OOM the job did not go on after), never, "
                 "or causes/kinds (comma-separated)");
  app.add_option("--max-incidents", o.max_incidents, "show at most this many incidents")
      ->check(CLI::Range(0, 1000000));
  app.add_flag("--headroom", o.headroom,
               "also show the memory budget each input printed and the headroom it leaves, failed or not");
  app.add_flag("--fleet", o.fleet,
               "each file is a job: the report summarised by failure across jobs (docs/fleet.md)");
  app.require_subcommand(0, 1);
  CLI::App* rules = app.add_subcommand("rules", "list or check the rules");
  rules->require_subcommand(1);
  CLI::App* list = rules->add_subcommand("list", "list signatures and cause rules");
  CLI::App* check = rules->add_subcommand("check", "validate rule files and run every sample");
  check->add_option("dirs", o.check_dirs, "rule folders to check with the built-in rules");
  CLI::App* facts = rules->add_subcommand("facts", "list the facts signatures and rules may use");
  CLI::App* literals = rules->add_subcommand("literals", "print the prefilter's literals, one per line");
  CLI::App* explain = app.add_subcommand("explain", "what an error code, kind or cause means (e.g. E0101)");
  std::string topic;
  explain->add_option("topic", topic, "E0100, E0101, E1000, E1001, a kind or a cause")->required();
  bool explain_detail = false;
  explain->add_flag("--detail", explain_detail,
                    "also the figures read, each rule's condition and every tip it can give");
  CLI::App* serve = app.add_subcommand("serve", "a local web page to paste a log into, and a JSON API");
  ServeOptions serve_options;
  serve->add_option("--listen", serve_options.listen,
                    "address to listen on (default 127.0.0.1: this machine only)");
  serve->add_option("--port", serve_options.port, "port (default 8080)")->check(CLI::Range(0, 65535));
  serve->add_option("--max-body", serve_options.max_body, "largest request in bytes (default 64 MiB)");
  serve->add_option("--max-in-flight", serve_options.max_in_flight,
                    "request bodies received at once, in bytes summed (default 256 MiB); more get 503");
  serve
      ->add_option("--request-timeout", serve_options.budget.grace_seconds,
                   "seconds a request may take to arrive, plus 1 s per MiB (default 20); slower gets 408")
      ->check(CLI::Range(1, 86400));
  serve
      ->add_option("--max-connections", serve_options.max_connections,
                   "connections served at once, a thread each (default 1024); more wait their turn")
      ->check(CLI::Range(1, 65536));
  CLI::App* completions =
      app.add_subcommand("completions", "print a shell completion script (bash, zsh, fish)");
  std::string shell;
  completions->add_option("shell", shell, "bash, zsh or fish")->required();
  completions->fallthrough();
  CLI::App* merge = app.add_subcommand("merge", "combine JSON reports (per shard or host) into one");
  merge->add_option("reports", o.reports, "reports written with --format json")->required();
  CLI::App* diff =
      app.add_subcommand("diff", "compare two runs: incidents that appeared or vanished, numbers that moved");
  diff->add_option("runs", o.reports, "BEFORE AFTER: logs or reports written with --format json")
      ->required()
      ->expected(2);
  merge->fallthrough();  // --format, --rules ... may come after the subcommand
  diff->fallthrough();

  if (argc == 2 && std::string(argv[1]) == "help" &&
      ::access("help", F_OK) != 0) {  // as git and cargo take it
    out << app.help();
    return kExitNoOom;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitNoOom;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitNoOom;
  } catch (const CLI::CallForVersion&) {
    out << VersionLine() << "\n";
    return kExitNoOom;
  } catch (const CLI::ParseError& e) {
    err << "oomlens: error: " << e.what() << UnknownFlagHint(app, argc, argv)
        << " (help: run 'oomlens --help')\n";
    return kExitError;
  }
  if (std::optional<ColorMode> mode = ParseColorMode(color)) {
    o.color = *mode;
  } else {
    err << "oomlens: error: --color " << color << ": unknown" << DidYouMean(color, ColorModeNames())
        << " (help: one of " << JoinNames(ColorModeNames()) << ")\n";
    return kExitError;
  }
  if (std::string problem = ReadOutputs(format_specs, &o); !problem.empty()) {
    err << "oomlens: error: " << problem << "\n";
    return kExitError;
  }
  if (!o.file_outputs.empty() && !merge->parsed() && app.get_subcommands().size() > 0) {
    err << "oomlens: error: --format FORMAT=FILE is for a scan or a merge, not '"
        << app.get_subcommands()[0]->get_name() << "' (help: redirect its output: > FILE)\n";
    return kExitError;
  }
  if (!o.chip.empty() && !ChipCapacity(o.chip)) {
    err << "oomlens: error: --chip " << o.chip << ": unknown chip (help: one of " << KnownChips() << ")\n";
    return kExitError;
  }
  for (const FileOutput& output : o.file_outputs) {
    if (o.fleet && !FleetFormat(output.format)) {
      err << "oomlens: error: --fleet writes text, json, markdown or html, not " << FormatName(output.format)
          << " (" << output.path << ")\n";
      return kExitError;
    }
  }
  if (o.fleet && !FleetFormat(o.format)) {
    err << "oomlens: error: --fleet writes text, json, markdown or html, not " << FormatName(o.format)
        << "\n";
    return kExitError;
  }
  if (merge->parsed()) return RunMerge(o, out, err, console);
  if (diff->parsed()) return RunDiff(o, out, err);
  if (serve->parsed()) return RunServe(o, serve_options, out, err, console);
  if (explain->parsed()) return RunExplain(o, topic, explain_detail, out, err);
  if (list->parsed()) return RunRulesList(o, out, err);
  if (check->parsed()) return RunRulesCheck(o, out, err);
  if (facts->parsed()) return RunRulesFacts(out);
  if (literals->parsed()) return RunRulesLiterals(o, out, err);
  if (completions->parsed()) return RunCompletions(o, shell, out, err);
  return RunScan(o, out, err, console);
}

namespace {

// What to do when stdout could not take the report, by the reason it gave.
const char* WriteFailureHelp(int error) {
  switch (error) {
    case ENOSPC:
    case EDQUOT: return "free space where stdout goes, or write elsewhere";
    case EBADF: return "stdout is closed (>&-): give oomlens a place to write, e.g. > report.txt";
    case EFBIG: return "the file stdout goes to may not grow that large: write elsewhere, or fewer incidents";
    default: return "check where stdout goes (a file, a pipe, a terminal), or write elsewhere";
  }
}

}  // namespace

int RunCliOnStdio(int argc, const char* const* argv, const std::atomic<bool>* interrupted) {
  Console console;
  console.stdin_is_terminal = ::isatty(STDIN_FILENO) == 1;
  console.stdout_is_terminal = ::isatty(STDOUT_FILENO) == 1;
  console.stderr_is_terminal = ::isatty(STDERR_FILENO) == 1;
  console.getenv = [](const char* name) -> const char* { return std::getenv(name); };
  console.interrupted = interrupted;
  errno = 0;
  int code = RunCli(argc, argv, std::cout, std::cerr, console);
  std::cout.flush();
  if (code != kExitBrokenPipe && !std::cout) code = kExitBrokenPipe;
  int error = errno;
  if (code == kExitBrokenPipe && error != 0 && error != EPIPE) {  // a full disk is no closed pipe
    std::cerr << "oomlens: error: writing the report failed: " << std::strerror(error)
              << " (help: " << WriteFailureHelp(error) << ")\n";
    return kExitError;
  }
  return code;
}

}  // namespace oomlens
