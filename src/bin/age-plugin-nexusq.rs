//! The age plugin binary: everything is in `nexusq::cli::age_plugin`.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(nexusq::cli::age_plugin::main(&args));
}
