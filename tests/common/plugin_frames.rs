//! The age plugin protocol's frames as age writes them, for driving `age-plugin-nexusq` with a
//! scripted conversation (tests/cli/age.rs, tests/cli/agent.rs).
#![allow(dead_code)]

/// One frame: `-> tag args…`, then the body in base64 lines of 64 (the last one shorter).
pub fn frame(tag: &str, args: &[&str], body: &[u8]) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD_NO_PAD.encode(body);
    let mut s = format!("-> {tag}");
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s.push('\n');
    let mut rest = b64.as_str();
    loop {
        let n = rest.len().min(64);
        s.push_str(&rest[..n]);
        s.push('\n');
        rest = &rest[n..];
        if n < 64 {
            break;
        }
    }
    s
}

/// The recipient-stanza frames for an age file (its stanza lines, prefixed).
pub fn stanza_frames(file: &[u8], index: &str) -> String {
    let text = String::from_utf8_lossy(file);
    let mut out = String::new();
    for line in text.lines().skip(1) {
        if line.starts_with("---") {
            break;
        }
        match line.strip_prefix("-> ") {
            Some(args) => out.push_str(&format!("-> recipient-stanza {index} {args}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// The frames the plugin wrote: (tag with arguments, body), in order.
pub fn said(out: &str) -> Vec<(String, Vec<u8>)> {
    use base64::Engine;
    let mut frames = Vec::new();
    let mut lines = out.lines().peekable();
    while let Some(head) = lines.next() {
        let head = head
            .strip_prefix("-> ")
            .expect("a frame starts with \"-> \"");
        let mut b64 = String::new();
        for line in lines.by_ref() {
            b64.push_str(line);
            if line.len() < 64 {
                break;
            }
        }
        let body = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(&b64)
            .expect("canonical base64");
        frames.push((head.to_string(), body));
    }
    frames
}
