//! Where a sentence-embedding model folder is found, the one rule for every model the program
//! loads (the runner's shortlist model, the retrievers' embedding model): the folder a flag
//! names, then the folder an environment variable names, then the Hugging Face cache in its own
//! layout (so a model the reference's Python stack already downloaded is found), then a download
//! from the hub into that cache on first use, as `sentence-transformers` does — unless
//! `HF_HUB_OFFLINE` is set. When none gives a model, the error names every option.
//!
//! The cache is `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`,
//! else `~/.cache/huggingface/hub`; a model is `models--<org>--<name>/snapshots/<revision>/`,
//! the revision `refs/main` names. The hub is `$HF_ENDPOINT` (default the public hub); files
//! come from `<endpoint>/<org>/<name>/resolve/main/<file>` and are written into a temporary
//! folder that is renamed into place once complete.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::EmbedError;

/// A model and the environment variable that may name its folder.
#[derive(Debug, Clone, Copy)]
pub struct ModelRef {
    /// The hub's name, e.g. `sentence-transformers/all-MiniLM-L6-v2`.
    pub repo_id: &'static str,
    pub env_var: &'static str,
    /// The flag that names a folder, for the error text.
    pub flag: &'static str,
}

/// The reference runner's tool-shortlist model.
pub const SHORTLIST_MODEL: ModelRef = ModelRef {
    repo_id: "sentence-transformers/all-MiniLM-L6-v2",
    env_var: "VAKRA_SHORTLIST_MODEL",
    flag: "--shortlist-model",
};

/// The reference retriever's embedding model (capability 4's documents and questions).
pub const EMBEDDING_MODEL: ModelRef = ModelRef {
    repo_id: "ibm-granite/granite-embedding-english-r2",
    env_var: "VAKRA_EMBEDDING_MODEL",
    flag: "--embedding-model",
};

/// Where a model folder came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    Flag,
    Environment,
    Cache,
    Download,
}

impl ModelSource {
    pub fn name(self) -> &'static str {
        match self {
            ModelSource::Flag => "flag",
            ModelSource::Environment => "environment",
            ModelSource::Cache => "cache",
            ModelSource::Download => "download",
        }
    }
}

/// A model folder and where it came from.
#[derive(Debug, Clone)]
pub struct Located {
    pub dir: PathBuf,
    pub source: ModelSource,
}

/// The files a sentence-transformers folder needs (`None`: optional).
const REQUIRED: [&str; 4] = [
    "modules.json",
    "config.json",
    "tokenizer.json",
    "model.safetensors",
];
const OPTIONAL: [&str; 5] = [
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
];

/// The largest file a download accepts (the biggest embedding models the benchmark uses are
/// well under this).
const MAX_FILE_BYTES: u64 = 4 << 30;

/// The environment variables the lookup reads.
type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Finds `model`'s folder: `explicit` (a flag), its environment variable, the cache, a download.
pub fn locate(model: &ModelRef, explicit: Option<&Path>) -> Result<Located, EmbedError> {
    locate_in(model, explicit, &|name| std::env::var(name).ok())
}

/// [`locate`] with the environment `env` gives.
fn locate_in(
    model: &ModelRef,
    explicit: Option<&Path>,
    env: Env<'_>,
) -> Result<Located, EmbedError> {
    let env = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(dir) = explicit {
        return checked(dir, ModelSource::Flag);
    }
    if let Some(dir) = env(model.env_var) {
        return checked(Path::new(&dir), ModelSource::Environment);
    }
    let cache = cache_in(&env);
    if let Some(dir) = cache.as_deref().and_then(|c| cached(c, model.repo_id)) {
        return Ok(Located {
            dir,
            source: ModelSource::Cache,
        });
    }
    let offline = env("HF_HUB_OFFLINE").is_some_and(|v| v != "0");
    let why = match (&cache, offline) {
        (None, _) => "no cache folder (set HF_HOME or HOME)".to_owned(),
        (Some(_), true) => "HF_HUB_OFFLINE is set".to_owned(),
        (Some(cache), false) => match download(
            cache,
            model.repo_id,
            &env("HF_ENDPOINT").unwrap_or_else(|| "https://huggingface.co".into()),
        ) {
            Ok(dir) => {
                return Ok(Located {
                    dir,
                    source: ModelSource::Download,
                });
            }
            Err(e) => format!("the download failed: {e}"),
        },
    };
    Err(EmbedError::Model(format!(
        "no {} model: name its folder with {} DIR or the environment variable {}, or put it in \
         the Hugging Face cache ({}); it is downloaded there on first use unless HF_HUB_OFFLINE \
         is set ({why})",
        model.repo_id,
        model.flag,
        model.env_var,
        cache
            .map(|c| c.join(cache_name(model.repo_id)).display().to_string())
            .unwrap_or_else(|| "HF_HOME/hub".into()),
    )))
}

fn checked(dir: &Path, source: ModelSource) -> Result<Located, EmbedError> {
    match REQUIRED.iter().find(|f| !dir.join(f).is_file()) {
        None => Ok(Located {
            dir: dir.to_owned(),
            source,
        }),
        Some(missing) => Err(EmbedError::Model(format!(
            "{}: not a sentence-transformers model folder ({missing} is missing)",
            dir.display()
        ))),
    }
}

/// The Hugging Face hub cache folder, as `huggingface_hub` finds it.
pub fn hub_cache() -> Option<PathBuf> {
    cache_in(&|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

fn cache_in(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(cache) = env("HF_HUB_CACHE") {
        return Some(cache.into());
    }
    if let Some(home) = env("HF_HOME") {
        return Some(PathBuf::from(home).join("hub"));
    }
    let base = env("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("huggingface").join("hub"))
}

fn cache_name(repo_id: &str) -> String {
    format!("models--{}", repo_id.replace('/', "--"))
}

/// The cached snapshot `refs/main` names, when it is complete.
fn cached(cache: &Path, repo_id: &str) -> Option<PathBuf> {
    let repo = cache.join(cache_name(repo_id));
    let revision = std::fs::read_to_string(repo.join("refs").join("main")).ok()?;
    let dir = repo.join("snapshots").join(revision.trim());
    checked(&dir, ModelSource::Cache).ok().map(|l| l.dir)
}

/// Downloads the model's files into the cache; the snapshot appears only once complete.
fn download(cache: &Path, repo_id: &str, endpoint: &str) -> Result<PathBuf, String> {
    let endpoint = endpoint.trim_end_matches('/');
    tracing::info!(
        "downloading {repo_id} from {endpoint} into {} (first use; HF_HUB_OFFLINE=1 forbids it)",
        cache.display()
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_body(Some(Duration::from_secs(600)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .build()
        .into();
    let repo = cache.join(cache_name(repo_id));
    let partial = repo.join(format!("partial-{}", std::process::id()));
    std::fs::create_dir_all(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
    let result = (|| {
        let fetch = |file: &str, required: bool| -> Result<Option<String>, String> {
            let url = format!("{endpoint}/{repo_id}/resolve/main/{file}");
            let mut response = agent.get(&url).call().map_err(|e| format!("{url}: {e}"))?;
            let status = response.status().as_u16();
            if status == 404 && !required {
                return Ok(None);
            }
            if status != 200 {
                return Err(format!("{url}: HTTP {status}"));
            }
            let revision = response
                .headers()
                .get("x-repo-commit")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let expected = response
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let target = partial.join(file);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            let mut out =
                std::fs::File::create(&target).map_err(|e| format!("{}: {e}", target.display()))?;
            let mut body = response.body_mut().as_reader().take(MAX_FILE_BYTES + 1);
            let written = std::io::copy(&mut body, &mut out).map_err(|e| format!("{url}: {e}"))?;
            if written > MAX_FILE_BYTES {
                return Err(format!("{url}: larger than {MAX_FILE_BYTES} bytes"));
            }
            if expected.is_some_and(|n| n != written) {
                return Err(format!(
                    "{url}: the answer ended after {written} of {} bytes",
                    expected.unwrap_or_default()
                ));
            }
            Ok(Some(revision.unwrap_or_else(|| "main".into())))
        };
        let revision = fetch("modules.json", true)?.unwrap_or_default();
        for file in REQUIRED.iter().skip(1) {
            fetch(file, true)?;
        }
        for file in OPTIONAL {
            fetch(file, false)?;
        }
        let modules: serde_json::Value = serde_json::from_slice(
            &std::fs::read(partial.join("modules.json")).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("modules.json: {e}"))?;
        for module in modules.as_array().into_iter().flatten() {
            match module.get("path").and_then(|p| p.as_str()) {
                Some(path) if !path.is_empty() && !path.contains("..") => {
                    fetch(&format!("{path}/config.json"), false)?;
                }
                _ => {}
            }
        }
        Ok(revision)
    })();
    let revision = match result {
        Ok(revision) => revision,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    let revision = if revision.is_empty() || revision.contains(['/', '\\', '.']) {
        "main".to_owned()
    } else {
        revision
    };
    let snapshot = repo.join("snapshots").join(&revision);
    std::fs::create_dir_all(repo.join("snapshots")).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&snapshot);
    std::fs::rename(&partial, &snapshot).map_err(|e| format!("{}: {e}", snapshot.display()))?;
    std::fs::create_dir_all(repo.join("refs")).map_err(|e| e.to_string())?;
    std::fs::write(repo.join("refs").join("main"), &revision).map_err(|e| e.to_string())?;
    Ok(snapshot)
}

/// A short content hash of a model folder's weights (`sha256:` and 16 hex digits), for records
/// that say which model ranked or searched.
pub fn model_hash(dir: &Path) -> Result<String, EmbedError> {
    use sha2::Digest;
    let path = dir.join("model.safetensors");
    let io = |source| EmbedError::Io {
        path: path.clone(),
        source,
    };
    let mut file = std::fs::File::open(&path).map_err(io)?;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(io)?;
    Ok(format!("sha256:{}", &hex::encode(hasher.finalize())[..16]))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::get;

    use super::*;

    const MODEL: ModelRef = SHORTLIST_MODEL;

    /// A model folder with the files the lookup checks (their contents do not matter here).
    fn folder(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        for file in REQUIRED {
            std::fs::write(dir.join(file), file).unwrap();
        }
    }

    fn env(pairs: &[(&str, String)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        move |name| map.get(name).cloned()
    }

    /// A stand-in for the hub on loopback serving `files` of the model (path → body); any other
    /// file is a 404. Its endpoint.
    fn hub(files: &[(&'static str, &'static str)]) -> String {
        let files: HashMap<String, &'static str> = files
            .iter()
            .map(|(path, body)| (format!("/{}/resolve/main/{path}", MODEL.repo_id), *body))
            .collect();
        let app = axum::Router::new().fallback(get(move |uri: axum::http::Uri| {
            let body = files.get(uri.path()).copied();
            async move {
                let mut headers = HeaderMap::new();
                headers.insert("x-repo-commit", "abc123".parse().unwrap());
                match body {
                    Some(body) => (StatusCode::OK, headers, body),
                    None => (StatusCode::NOT_FOUND, headers, "Entry not found"),
                }
            }
        }));
        format!("http://{}", vakra_test_kit::net::serve_in_thread(app))
    }

    #[test]
    fn the_flag_comes_before_the_variable_and_the_variable_before_the_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let (flag, var) = (tmp.path().join("flag"), tmp.path().join("var"));
        folder(&flag);
        folder(&var);
        let cached = tmp
            .path()
            .join("hf/hub/models--sentence-transformers--all-MiniLM-L6-v2");
        folder(&cached.join("snapshots/rev1"));
        std::fs::create_dir_all(cached.join("refs")).unwrap();
        std::fs::write(cached.join("refs/main"), "rev1\n").unwrap();
        let home = ("HF_HOME", tmp.path().join("hf").display().to_string());
        let with_var = env(&[home.clone(), (MODEL.env_var, var.display().to_string())]);
        let found = locate_in(&MODEL, Some(&flag), &with_var).unwrap();
        assert_eq!((found.dir, found.source), (flag.clone(), ModelSource::Flag));
        let found = locate_in(&MODEL, None, &with_var).unwrap();
        assert_eq!((found.dir, found.source), (var, ModelSource::Environment));
        let found = locate_in(&MODEL, None, &env(&[home])).unwrap();
        assert_eq!(found.dir, cached.join("snapshots/rev1"));
        assert_eq!(found.source, ModelSource::Cache);
        // A folder that is not a model is named with what it lacks.
        let err = locate_in(&MODEL, Some(tmp.path()), &env(&[])).unwrap_err();
        assert!(err.to_string().contains("modules.json is missing"), "{err}");
    }

    #[test]
    fn a_model_missing_everywhere_is_downloaded_into_the_cache_once() {
        let endpoint = hub(&[
            (
                "modules.json",
                r#"[{"idx": 0, "path": ""}, {"idx": 1, "path": "1_Pooling"}]"#,
            ),
            ("config.json", "{}"),
            ("tokenizer.json", "{}"),
            ("model.safetensors", "weights"),
            ("1_Pooling/config.json", "{}"),
        ]);
        let tmp = tempfile::tempdir().unwrap();
        let vars = env(&[
            ("HF_HOME", tmp.path().display().to_string()),
            ("HF_ENDPOINT", endpoint),
        ]);
        let found = locate_in(&MODEL, None, &vars).unwrap();
        assert_eq!(found.source, ModelSource::Download);
        let repo = tmp
            .path()
            .join("hub/models--sentence-transformers--all-MiniLM-L6-v2");
        assert_eq!(found.dir, repo.join("snapshots/abc123"));
        assert_eq!(
            std::fs::read_to_string(repo.join("refs/main")).unwrap(),
            "abc123"
        );
        assert_eq!(
            std::fs::read_to_string(found.dir.join("model.safetensors")).unwrap(),
            "weights"
        );
        assert!(found.dir.join("1_Pooling/config.json").is_file());
        assert!(
            !found.dir.join("vocab.txt").exists(),
            "optional files may be missing"
        );
        // The next lookup finds it in the cache, even offline.
        let offline = env(&[
            ("HF_HOME", tmp.path().display().to_string()),
            ("HF_HUB_OFFLINE", "1".into()),
        ]);
        assert_eq!(
            locate_in(&MODEL, None, &offline).unwrap().source,
            ModelSource::Cache
        );
    }

    #[test]
    fn a_failed_download_leaves_nothing_and_the_error_names_every_option() {
        let endpoint = hub(&[("modules.json", "[]"), ("config.json", "{}")]);
        let tmp = tempfile::tempdir().unwrap();
        let vars = env(&[
            ("HF_HOME", tmp.path().display().to_string()),
            ("HF_ENDPOINT", endpoint),
        ]);
        let err = locate_in(&MODEL, None, &vars).unwrap_err().to_string();
        assert!(err.contains("tokenizer.json: HTTP 404"), "{err}");
        let repo = tmp
            .path()
            .join("hub/models--sentence-transformers--all-MiniLM-L6-v2");
        let left: Vec<_> = std::fs::read_dir(&repo).unwrap().flatten().collect();
        assert!(left.is_empty(), "nothing half-written stays: {left:?}");
        let offline = env(&[
            ("HF_HOME", tmp.path().display().to_string()),
            ("HF_HUB_OFFLINE", "1".into()),
        ]);
        let err = locate_in(&MODEL, None, &offline).unwrap_err().to_string();
        for option in [
            "--shortlist-model",
            "VAKRA_SHORTLIST_MODEL",
            "HF_HUB_OFFLINE",
            "Hugging Face cache",
        ] {
            assert!(err.contains(option), "{option}: {err}");
        }
        // No hub at all (a closed port): an error, not a hang.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let vars = env(&[
            ("HF_HOME", tmp.path().display().to_string()),
            ("HF_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ]);
        assert!(
            locate_in(&MODEL, None, &vars)
                .unwrap_err()
                .to_string()
                .contains("download failed")
        );
    }
}
