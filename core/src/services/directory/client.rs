//! The directory client: publish an export or a certificate, look an identity up by
//! fingerprint (docs/directory.md). HTTPS with rustls (ring, web PKI roots, no OpenSSL, so it
//! works on Termux as it is); plain `http://` only to this machine's loopback, which the
//! caller is told of ([`Directory::is_plain_http`]) to warn about.

use super::api::{Entry, ErrorCode};
use super::api::{
    ErrorBody, IDENTITIES_PATH, MAX_ANSWER, OPENPGP_PATH, PUBLISH_PATH, Published, path_fingerprint,
};
use crate::error::{Error, Result};
use crate::identity::Fingerprint;
use crate::untrusted;
use std::net::IpAddr;
use std::time::Duration;

/// How long one request may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A directory server, by its base URL.
pub struct Directory {
    base: String,
    plain_http: bool,
    agent: ureq::Agent,
}

/// A refusal the directory answered with: its stable code and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The HTTP status.
    pub status: u16,
    /// The error code.
    pub code: ErrorCode,
    /// The server's message (text from the server: escape before printing).
    pub message: String,
}

impl Directory {
    /// The directory at `url` (`https://host[:port][/prefix]`, or `http://` to a loopback
    /// address). Anything else is refused.
    pub fn new(url: &str) -> Result<Directory> {
        let shown = untrusted::escape(url);
        let bad = |why: &str| {
            Error::usage(
                format!("the directory URL {shown} {why}"),
                "give the server as https://HOST[:PORT], or http:// only for 127.0.0.1, ::1 or \
                 localhost",
            )
        };
        let uri: ureq::http::Uri = url.parse().map_err(|_| bad("is not a URL"))?;
        let host = uri.host().ok_or_else(|| bad("has no host"))?;
        let plain_http = match uri.scheme_str() {
            Some("https") => false,
            Some("http") if is_loopback(host) => true,
            Some("http") => {
                return Err(bad(
                    "is plain http to another machine: anyone on the way could withhold \
                     updates or see whom you look up",
                ));
            }
            _ => return Err(bad("is neither https:// nor http://")),
        };
        if uri.query().is_some() {
            return Err(bad("has a query"));
        }
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(TIMEOUT))
            .http_status_as_error(false)
            .user_agent(concat!("nexusq/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Directory {
            base: url.trim_end_matches('/').to_string(),
            plain_http,
            agent: ureq::Agent::new_with_config(config),
        })
    }

    /// The base URL.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Is this plain HTTP (to loopback)? The caller warns.
    pub fn is_plain_http(&self) -> bool {
        self.plain_http
    }

    /// Upload an export or a certificate. A refusal ([`Refused`]) is `Ok(Err(_))`: the
    /// directory answered, and said no.
    pub fn publish(&self, body: &[u8]) -> Result<std::result::Result<Published, Refused>> {
        let url = format!("{}{PUBLISH_PATH}", self.base);
        let answer = self
            .agent
            .post(&url)
            .header("content-type", "application/octet-stream")
            .send(body);
        self.answer(answer, "publish to")
    }

    /// The identity with this nexusq fingerprint; `None` when the directory has none.
    pub fn lookup(&self, fp: &Fingerprint) -> Result<Option<Entry>> {
        self.get(&format!(
            "{}{IDENTITIES_PATH}{}",
            self.base,
            path_fingerprint(fp)
        ))
    }

    /// The identity with this OpenPGP fingerprint (hex); `None` when the directory has none.
    pub fn lookup_openpgp(&self, hex: &str) -> Result<Option<Entry>> {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::usage(
                format!(
                    "\"{}\" is not an OpenPGP fingerprint",
                    untrusted::escape(hex)
                ),
                "give the fingerprint as hex digits",
            ));
        }
        self.get(&format!("{}{OPENPGP_PATH}{hex}", self.base))
    }

    fn get(&self, url: &str) -> Result<Option<Entry>> {
        match self.answer(self.agent.get(url).call(), "look up on")? {
            Ok(entry) => Ok(Some(entry)),
            Err(r) if r.code == ErrorCode::NotFound => Ok(None),
            Err(r) => Err(Error::check(
                format!(
                    "the directory {} refused the lookup: {} ({})",
                    self.base,
                    untrusted::escape(&r.message),
                    code_name(r.code)
                ),
                "check the fingerprint; if it is right, try again later",
            )),
        }
    }

    /// Read an answer: a 2xx body as `T`, an error body as [`Refused`]; a failed connection,
    /// an oversized or unreadable answer is an I/O error.
    fn answer<T: serde::de::DeserializeOwned>(
        &self,
        answer: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        doing: &str,
    ) -> Result<std::result::Result<T, Refused>> {
        let unreachable = |e: &dyn std::fmt::Display| {
            Error::io(
                format!("could not {doing} the directory {}: {e}", self.base),
                "check the network and the server's URL, then try again",
            )
        };
        let mut response = answer.map_err(|e| unreachable(&e))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER as u64)
            .read_to_vec()
            .map_err(|e| unreachable(&e))?;
        let garbled = || {
            Error::io(
                format!(
                    "the directory {} gave an answer nexusq cannot read (HTTP {status})",
                    self.base
                ),
                "check that the URL is a nexusq directory",
            )
        };
        if (200..300).contains(&status) {
            return serde_json::from_slice(&body).map(Ok).map_err(|_| garbled());
        }
        let refused: ErrorBody = serde_json::from_slice(&body).map_err(|_| garbled())?;
        Ok(Err(Refused {
            status,
            code: refused.error.code,
            message: refused.error.message,
        }))
    }
}

/// An error code as the API spells it.
pub fn code_name(code: ErrorCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into())
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_and_plain_http_only_to_loopback() {
        assert!(
            !Directory::new("https://keys.example.org")
                .unwrap()
                .is_plain_http()
        );
        for local in [
            "http://127.0.0.1:8080",
            "http://[::1]:1/",
            "http://localhost",
        ] {
            assert!(Directory::new(local).unwrap().is_plain_http(), "{local}");
        }
        for bad in [
            "http://keys.example.org",
            "http://10.0.0.1",
            "ftp://127.0.0.1",
            "keys.example.org",
            "https://keys.example.org/?a=b",
            "",
        ] {
            let e = Directory::new(bad).err().unwrap();
            assert_eq!(e.kind(), crate::ErrorKind::Usage, "{bad}");
        }
        assert_eq!(
            Directory::new("https://k.example/dir/").unwrap().url(),
            "https://k.example/dir"
        );
    }

    #[test]
    fn a_server_that_is_not_there_is_an_io_error() {
        // A port nothing listens on: bind one, note it, close it.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let d = Directory::new(&format!("http://127.0.0.1:{port}")).unwrap();
        let e = d.publish(b"x").err().unwrap();
        assert_eq!(e.kind(), crate::ErrorKind::Io);
        assert!(
            e.message().contains("could not publish to the directory"),
            "{e:?}"
        );
    }
}
