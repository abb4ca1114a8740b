//! The key agent's protocol parser (core/src/services/agent/protocol.rs): frames, requests and responses.
//! Nothing may panic or allocate past the bounds; whatever decodes must encode back to the
//! same bytes.

use nexusq_core::agent::protocol::{self, Request, Response};

pub fn run(data: &[u8]) {
    // As the agent reads a connection: one bounded frame, then the request.
    let mut r = data;
    if let Ok(body) = protocol::read_frame(&mut r, protocol::MAX_REQUEST) {
        assert!(body.len() <= protocol::MAX_REQUEST);
        if let Ok(req) = Request::decode(&body) {
            assert_eq!(req.encode(), *body);
        }
    }
    if let Ok(req) = Request::decode(data) {
        assert_eq!(Request::decode(&req.encode()).unwrap(), req);
    }
    // As a client reads the agent's answer.
    if let Ok(resp) = Response::decode(data) {
        let again = resp.encode();
        assert!(Response::decode(&again).is_ok());
    }
}
