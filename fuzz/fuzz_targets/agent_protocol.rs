//! The key agent's protocol parser (core/src/services/agent/protocol.rs): frames, requests and responses.
//! Nothing may panic or allocate past the bounds; whatever decodes must encode back to the
//! same bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nexusq_fuzz::targets::agent_protocol::run(data));
