//! Which directory server the user chose, if any (docs/directory.md, "Configuration"): none
//! by default, so nothing leaves the phone unless its owner chose a server. The caller gives
//! the command line's choice and `$NEXUSQ_SERVER`; the file is `config.toml` in the
//! platform's configuration folder (`~/.config/nexusq/` on Linux and Termux), or
//! `$NEXUSQ_CONFIG`:
//!
//! ```toml
//! [directory]
//! server = "https://keys.example.org"
//! ```

use crate::error::{Error, Result};
use crate::untrusted;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Longest configuration file read.
const MAX_CONFIG_LEN: u64 = 64 * 1024;

/// The configuration file: `explicit` (`$NEXUSQ_CONFIG`) when given, else
/// `<config dir>/nexusq/config.toml`; `None` without a home folder.
pub fn config_path(explicit: Option<PathBuf>) -> Option<PathBuf> {
    explicit.or_else(|| {
        directories::BaseDirs::new().map(|d| d.config_dir().join("nexusq").join("config.toml"))
    })
}

#[derive(Deserialize, Default)]
struct Config {
    #[serde(default)]
    directory: DirectorySection,
}

#[derive(Deserialize, Default)]
struct DirectorySection {
    server: Option<String>,
}

/// The server named in the configuration file at `path`; `None` when the file does not
/// exist or names none. A file that cannot be read or parsed is an error that names it.
pub fn server_in(path: &Path) -> Result<Option<String>> {
    let shown = untrusted::path(path);
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::io(
            format!("could not read the configuration file {shown}: {e}"),
            "check the file's permissions, or remove it",
        )
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(&e)),
    };
    let text = crate::fs::input::read_capped(file, MAX_CONFIG_LEN)
        .map_err(|e| unreadable(&e))?
        .ok_or_else(|| {
            Error::usage(
                format!("the configuration file {shown} is over 64 KiB"),
                "a configuration file holds a few lines; fix it",
            )
        })?;
    let text = String::from_utf8(text).map_err(|_| {
        Error::usage(
            format!("the configuration file {shown} is not UTF-8 text"),
            "fix or remove the file",
        )
    })?;
    let config: Config = toml::from_str(&text).map_err(|e| {
        Error::usage(
            format!(
                "the configuration file {shown} is not valid TOML: {}",
                untrusted::escape(e.message())
            ),
            "fix the file; the directory is set as [directory] server = \"https://…\"",
        )
    })?;
    Ok(config.directory.server.filter(|s| !s.trim().is_empty()))
}

/// The server to use: the command line's (`flag`), else `env` (`$NEXUSQ_SERVER`), else the
/// configuration file's; `None` when the user chose none.
pub fn server(
    flag: Option<&str>,
    env: Option<String>,
    config: Option<&Path>,
) -> Result<Option<String>> {
    if let Some(url) = flag {
        return Ok(Some(url.to_string()));
    }
    if let Some(url) = env.filter(|s| !s.trim().is_empty()) {
        return Ok(Some(url));
    }
    match config {
        Some(path) => server_in(path),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_then_the_environment_then_the_file_and_none_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        assert_eq!(server(None, None, Some(&file)).unwrap(), None);
        std::fs::write(&file, "[directory]\nserver = \"https://k.example\"\n").unwrap();
        assert_eq!(
            server(None, None, Some(&file)).unwrap().as_deref(),
            Some("https://k.example")
        );
        assert_eq!(
            server(None, Some("https://env.example".into()), Some(&file))
                .unwrap()
                .as_deref(),
            Some("https://env.example")
        );
        assert_eq!(
            server(Some("https://flag.example"), Some("x".into()), Some(&file))
                .unwrap()
                .as_deref(),
            Some("https://flag.example")
        );
        std::fs::write(&file, "[directory\nserver = 1").unwrap();
        let e = server(None, None, Some(&file)).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Usage);
        assert!(e.message().contains("not valid TOML"), "{e:?}");
    }
}
