//! The retriever tools' default descriptions read from a checkout's Python source: a checkout
//! written here in the reference's form (with texts of our own), and, when `VAKRA_REF` names
//! a checkout, the reference itself.

use std::path::Path;

use serde_json::{Value, json};
use vakra_catalog::DataRoot;
use vakra_catalog::files::DEFAULT_DESCRIPTIONS;
use vakra_import::ImportError;
use vakra_import::retriever_texts::{COMBINED_SERVER, RETRIEVER_SERVER, import_retriever_texts};
use vakra_test_kit::reference;

fn write(repo: &Path, relative: &str, text: &str) {
    let path = repo.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const SERVER: &str = r#"
DESCRIPTIONS = {}

def register(router, domain: str):
    summary = DESCRIPTIONS.get(domain, {}).get("summary", "unrelated")
    text = DESCRIPTIONS.get(domain, {}).get(
        "description", f"Looks up {domain} papers {{exactly}}."
    )
    router.post("/query", description=text)
"#;

const COMBINED: &str = r#"
class Wrapper:
    def tools(self, spec):
        for path, item in spec["paths"].items():
            operation = item["post"]
            name = operation.get("summary", operation.get("description", f"POST {path}"))
            other = operation.get("summary") or "not this one"
            description = operation.get("description") or (
                f"Asks the '{path_domain}' shelf. "
                "Plain questions work best."
            )
"#;

fn imported(repo: &Path) -> (tempfile::TempDir, Result<Vec<String>, ImportError>) {
    let out = tempfile::tempdir().expect("temp dir");
    let written = import_retriever_texts(repo, &DataRoot::new(out.path()));
    (out, written)
}

fn read(out: &Path) -> Value {
    let text = std::fs::read_to_string(DEFAULT_DESCRIPTIONS.path(out)).expect("written");
    serde_json::from_str(&text).expect("json")
}

#[test]
fn both_default_texts_become_templates_over_the_domain() {
    let repo = tempfile::tempdir().expect("temp dir");
    write(repo.path(), RETRIEVER_SERVER, SERVER);
    write(repo.path(), COMBINED_SERVER, COMBINED);
    let (out, written) = imported(repo.path());
    assert_eq!(written.expect("import"), [DEFAULT_DESCRIPTIONS.relative()]);
    assert_eq!(
        read(out.path()),
        json!({
            "no_description": "Looks up {domain} papers {exactly}.",
            "empty_description": "Asks the '{domain}' shelf. Plain questions work best."
        })
    );
}

#[test]
fn a_checkout_without_the_servers_writes_nothing() {
    let repo = tempfile::tempdir().expect("temp dir");
    write(repo.path(), RETRIEVER_SERVER, SERVER);
    let (out, written) = imported(repo.path());
    assert!(written.expect("import").is_empty());
    assert!(!DEFAULT_DESCRIPTIONS.path(out.path()).exists());
}

#[test]
fn a_server_without_its_default_text_is_an_error_naming_it() {
    let repo = tempfile::tempdir().expect("temp dir");
    write(repo.path(), RETRIEVER_SERVER, SERVER);
    write(
        repo.path(),
        COMBINED_SERVER,
        "description = operation.get('description') or 'plain'\n",
    );
    let (_out, written) = imported(repo.path());
    let message = written.expect_err("no default").to_string();
    assert!(
        message.contains("capability_4_mcp_server.py") && message.contains("default description"),
        "{message}"
    );
    write(
        repo.path(),
        RETRIEVER_SERVER,
        "text = d.get('description', f'{domain.upper()} docs')\n",
    );
    write(repo.path(), COMBINED_SERVER, COMBINED);
    let (_out, written) = imported(repo.path());
    let message = written.expect_err("an unsupported field").to_string();
    assert!(
        message.contains("server.py") && message.contains("more than the domain name"),
        "{message}"
    );
    write(repo.path(), RETRIEVER_SERVER, "def broken(:\n");
    let (_out, written) = imported(repo.path());
    assert!(matches!(
        written.expect_err("a syntax error"),
        ImportError::Parse { .. }
    ));
}

/// The reference's own texts: each template, with the domain field put back as the source
/// writes it, occurs in the source (the wrapper's as two adjacent literals).
#[test]
fn the_reference_default_texts_are_read_from_its_source() {
    let Some(repo) = reference::checkout("the reference's default descriptions") else {
        return;
    };
    let (out, written) = imported(&repo);
    assert_eq!(written.expect("import"), [DEFAULT_DESCRIPTIONS.relative()]);
    let texts = read(out.path());
    let source = |relative: &str| std::fs::read_to_string(repo.join(relative)).expect("source");
    let server = texts["no_description"].as_str().expect("string");
    assert!(server.contains("{domain}"), "{server}");
    assert!(source(RETRIEVER_SERVER).contains(&format!("f\"{server}\"")));
    let wrapper = texts["empty_description"].as_str().expect("string");
    let wrapper = wrapper.replace("{domain}", "{path_domain}");
    let combined = source(COMBINED_SERVER);
    let split = wrapper.find(". ").expect("two sentences") + 2;
    let (first, second) = wrapper.split_at(split);
    assert!(combined.contains(&format!("f\"{first}\"")), "{first}");
    assert!(combined.contains(&format!("\"{second}\"")), "{second}");
}
