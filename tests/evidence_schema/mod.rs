//! The evidence schema (docs/bench.schema.json) for the tests that validate records against it:
//! tests/cli/bench.rs (`nexusq bench --json`) and tests/cli/evidence.rs (the arena's committed output,
//! the shared record types, `nexusq report`).
#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;

/// The compiled schema.
pub fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("a valid draft 2020-12 schema")
}

/// `record` validates, or the test fails naming every error.
pub fn assert_valid(validator: &jsonschema::Validator, record: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(record)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{record}\n{errors:#?}");
}
