//! `cargo bench --bench crypto_baseline [-- --nocapture]`: the 12-row baseline table of
//! `nexusq bench` (BENCHMARKS.md, "Baseline table"), from the same code
//! (`nexusq_core::tools::bench::baseline`), with the default counts, the default KDF and the rustcrypto
//! backend. `-- --markdown` prints the Markdown form. The throwaway vault lives in $TMPDIR and is
//! removed, also on Ctrl-C.

use nexusq_core::suite::BackendChoice;
use nexusq_core::tools::bench::baseline::{self, Config};
use nexusq_core::tools::bench::report::{self, Style};
use nexusq_core::tools::bench::scratch;
use std::io::{IsTerminal, Write};

fn main() {
    // cargo passes --bench (and --nocapture when asked); only --markdown means anything here.
    let markdown = std::env::args().any(|a| a == "--markdown");
    let backend = BackendChoice::RustCrypto.backend().expect("rustcrypto");
    let terminal = std::io::stderr().is_terminal();
    scratch::install_interrupt_handler(|| eprintln!("\ninterrupted; throwaway vault removed"))
        .expect("Ctrl-C handler");
    let result = baseline::run(backend, &Config::default(), &mut |p| {
        if terminal {
            eprint!("\r\x1b[2K{} {} ({}/{})", p.verb, p.what, p.index, p.total);
            let _ = std::io::stderr().flush();
        }
    });
    scratch::wait_if_interrupted();
    if terminal {
        eprint!("\r\x1b[2K");
    }
    let b = result.unwrap_or_else(|e| panic!("{e}"));
    let style = if markdown {
        Style::Markdown
    } else {
        Style::Text
    };
    print!("{}", report::baseline_table(&b, style));
}
