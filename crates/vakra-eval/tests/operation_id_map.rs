//! `read_operation_id_map` on the reference's own map file and on files of the wrong shape.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::{Value, json};
use vakra_eval::read_operation_id_map;
use vakra_test_kit::reference;

/// The reference's combined map ([`reference::file`]).
fn reference_map() -> Option<PathBuf> {
    reference::file("environment/m3/rest/server/mapping_metadata/all_operation_id_mappings.json")
}

#[test]
fn the_reference_map_file_is_read_whole() {
    let Some(path) = reference_map() else {
        return;
    };
    let map = read_operation_id_map(&path).unwrap();
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(map.len() as u64, raw["total_mappings"].as_u64().unwrap());
    assert!(map.len() > 9000, "{}", map.len());
    assert_eq!(
        map["get_sum_households_v1_address_sum_households_by_county_get"],
        "get_sum_households"
    );
    // Tool names were cut to fit 64 characters: the new name is then no prefix of the old id,
    // so only the map can translate these.
    let shortened: Vec<(&String, &str)> = raw["files"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|file| file.as_object().unwrap())
        .map(|(old, new)| (old, new.as_str().unwrap()))
        .filter(|(old, new)| !old.starts_with(new))
        .collect();
    assert!(!shortened.is_empty());
    for (old, new) in &shortened {
        assert_eq!(map.get(*old).map(String::as_str), Some(*new), "{old}");
    }
    assert_eq!(
        map["get_percentage_positive_expression_correlation_by_phenotype_motif_v1_genes_percentage_positive_expression_correlation_by_phenotype_motif_get"],
        "get_pct_positive_expression_correlation_by_phenotype_motif"
    );
}

fn read(value: &Value) -> Result<HashMap<String, String>, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.json");
    std::fs::write(&path, value.to_string()).unwrap();
    read_operation_id_map(&path)
}

#[test]
fn every_documented_form_is_read() {
    let want: HashMap<String, String> = [("a_v1_d_a_get".to_owned(), "a".to_owned())].into();
    for form in [
        json!({"total_files": 1, "total_mappings": 1, "files": {"d.py": {"a_v1_d_a_get": "a"}}}),
        json!({"files": {"d.py": {"mappings": {"a_v1_d_a_get": "a"}}}}),
        json!({"mappings": {"a_v1_d_a_get": "a"}}),
        json!({"a_v1_d_a_get": "a"}),
    ] {
        assert_eq!(read(&form).as_ref(), Ok(&want), "{form}");
    }
}

#[test]
fn a_map_of_the_wrong_shape_is_an_error_not_an_empty_map() {
    for (form, says) in [
        (json!([]), "expected a JSON object"),
        (json!({"files": []}), "\"files\" must be an object"),
        (
            json!({"files": {"d.py": ["x"]}}),
            "files.\"d.py\" must be an object",
        ),
        (
            json!({"files": {"d.py": {"x": 1}}}),
            "files.\"d.py\": \"x\" maps to 1",
        ),
        (
            json!({"total_mappings": 2, "files": {"d.py": {"x": "y"}}}),
            "says 2 but the files hold 1",
        ),
        (json!({"mappings": "x"}), "\"mappings\" must be an object"),
        (json!({"x": {"y": "z"}}), "\"x\" maps to {\"y\":\"z\"}"),
    ] {
        let error = read(&form).unwrap_err();
        assert!(error.contains(says), "{form}: {error}");
    }
}
