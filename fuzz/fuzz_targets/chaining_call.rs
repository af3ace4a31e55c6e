//! Capability-1 session calls with arbitrary arguments on a tiny SQLite universe.
//!
//! Input: lines of `<tool name> <JSON object>`; each input runs its calls in order on a fresh
//! session of each server mode, so handles made by one call reach the next.

#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use vakra_chaining::{ChainingEnv, ChainingOptions, ServerMode, Session, ToolTexts, Universes};

struct Fixture {
    _dir: tempfile::TempDir,
    envs: Vec<Arc<ChainingEnv>>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("tiny")).expect("mkdir");
        rusqlite::Connection::open(dir.path().join("tiny/tiny.sqlite"))
            .expect("create")
            .execute_batch(
                "CREATE TABLE items (id INTEGER, name TEXT, price REAL, made TEXT, tag);
                 INSERT INTO items VALUES (1, 'apple', 1.5, '2020-01-02', 'a'),
                   (2, 'Pear', NULL, '2021-13-40', 3), (3, '', 2.25, '1999-12-31 23:59:59', NULL),
                   (4, 'ünï', -0.0, '', 4.5), (5, 'apple', 1e308, '2020-01-02T10:00:00', 'a');
                 CREATE TABLE makers (id INTEGER, item_id INTEGER, country TEXT);
                 INSERT INTO makers VALUES (1, 1, 'FR'), (2, 2, 'DE'), (3, 2, NULL);",
            )
            .expect("fill");
        let table = |t: &str| json!({"modified_table_name": t, "original_table_name": t});
        let mapping = json!({
            "u-1": {"domain": "tiny", "server_type": "slot_filling", "init_args": {
                "alias_to_table_dict": {"": table("items")}, "condition_sequence": [],
                "database_path": "ignored"}},
            "u-2": {"domain": "tiny", "server_type": "selection", "init_args": {
                "alias_to_table_dict": {"T1": table("items"), "T2": table("makers")},
                "condition_sequence": [["T1.id", "T2.item_id", "INNER"]],
                "database_path": "ignored"}},
        });
        let universes = Arc::new(Universes::from_json(&mapping.to_string()).expect("mapping"));
        let texts = Arc::new(ToolTexts::load(&vakra_fuzz::repo_root()).expect("texts"));
        let envs = [
            ServerMode::Router,
            ServerMode::SlotFilling,
            ServerMode::Selection,
        ]
        .into_iter()
        .map(|mode| {
            let options = ChainingOptions {
                mode,
                max_session_bytes: 1 << 20,
                ..ChainingOptions::default()
            };
            let env = ChainingEnv::open(
                Arc::clone(&universes),
                Arc::clone(&texts),
                dir.path().to_owned(),
                "tiny",
                options,
            )
            .expect("env");
            Arc::new(env)
        })
        .collect();
        Fixture { _dir: dir, envs }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let calls: Vec<(&str, serde_json::Map<String, serde_json::Value>)> = text
        .lines()
        .take(16)
        .filter_map(|line| {
            let (name, args) = line.split_once(' ').unwrap_or((line, "{}"));
            Some((name, vakra_fuzz::json_object(args.as_bytes())?))
        })
        .collect();
    for env in &fixture().envs {
        let mut session = Session::new(Arc::clone(env));
        for (name, arguments) in &calls {
            let _ = session.call(name, arguments.clone());
            let _ = session.list_tools();
        }
    }
});
