//! Parse, run, map the error to an exit code; nothing else.

use clap::Parser;

fn main() {
    let cli = match nexusq::cli::args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let json = std::env::args_os().any(|a| a == "--json");
            // A password or saving option after a command that does not take it: our usage
            // error, naming the commands that do (docs/cli.md, "Options a command does not use").
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            if let Some(err) = nexusq::cli::unused_options::misplaced(&e, &args) {
                nexusq::cli::output::Output::new(json).error(&err);
                std::process::exit(err.exit().code());
            }
            // --help and --version exit 0; every other clap error is a usage error (exit 2).
            let _ = e.print();
            // Under --json a usage error is also the error object on stdout (docs/cli.md).
            if e.use_stderr() && json {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or("invalid command line");
                let err = nexusq::cli::error::Error::usage(
                    first.strip_prefix("error: ").unwrap_or(first).to_string(),
                    "see `nexusq <command> --help`",
                );
                println_json(&err.to_json());
            }
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let json = cli.global.json;
    if let Err(err) = nexusq::cli::run(cli) {
        // A reader of stdout that went away (`nexusq decrypt f | head`) ends the command
        // quietly with exit 0, as `nexusq manpage | head` does (docs/cli.md).
        if err.is_broken_pipe() {
            std::process::exit(0);
        }
        nexusq::cli::output::Output::new(json).error(&err);
        std::process::exit(err.exit().code());
    }
}

/// One JSON line on stdout; a closed stdout is ignored.
fn println_json(value: &serde_json::Value) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{value}");
}
