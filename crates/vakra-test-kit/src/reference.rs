//! The reference's files (IBM/vakra at the pinned commit), for the tests that compare against
//! them. One resolution for all of them, in this order:
//!
//! 1. the checkout `VAKRA_REF` names;
//! 2. `shared/reference` (the reference's published data files, beside the repository or where
//!    `VAKRA_SHARED` says): only for [`file`], since it is not a whole checkout;
//! 3. a shallow clone of the reference's public repository at [`COMMIT`], made once into a cache
//!    folder (`VAKRA_REF_CACHE`, else `$XDG_CACHE_HOME/vakra-rs`, else `~/.cache/vakra-rs`) from
//!    `VAKRA_REF_URL` (default [`URL`]); `VAKRA_REF_FETCH=0` forbids the clone.
//!
//! When none is there, the test is skipped with one line on stderr saying why and how to enable
//! it; the switch `VAKRA_REQUIRE_REF` (for [`file`]) or `VAKRA_REQUIRE_REF_CHECKOUT` (for
//! [`checkout`]) turns the skip into a failure.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::{paths, switches};

/// The reference commit every test and spec of this project is written against.
pub const COMMIT: &str = "a44036ad4e974ce7d0c2cd2179971e2b400dd18f";

/// The reference's public repository.
pub const URL: &str = "https://github.com/IBM/vakra.git";

/// How long one clone may take before it is given up.
const FETCH_TIMEOUT: Duration = Duration::from_secs(600);

/// How to enable the tests that are skipped, said in every skip line.
const HOW: &str = "to run it, set VAKRA_REF to a checkout of IBM/vakra, or put shared/ beside \
                   the repository (VAKRA_SHARED), or let it clone IBM/vakra (VAKRA_REF_URL)";

/// The file or folder `relative` of the reference (a path inside its repository, as
/// `environment/bpo/data`). Missing everywhere: `None`, after [`switches::skip_or_fail`] under
/// `VAKRA_REQUIRE_REF`. A `VAKRA_REF` that is no folder fails.
#[track_caller]
pub fn file(relative: &str) -> Option<PathBuf> {
    match Sources::from_env().file(relative) {
        Ok(path) => Some(path),
        Err(why) => {
            switches::skip_or_fail(
                "VAKRA_REQUIRE_REF",
                &format!("the reference's {relative} is missing ({why}): {HOW}"),
            );
            None
        }
    }
}

/// A whole reference checkout, for `what`: `VAKRA_REF`, else the pinned clone. Without one:
/// `None`, after [`switches::skip_or_fail`] under `VAKRA_REQUIRE_REF_CHECKOUT`.
#[track_caller]
pub fn checkout(what: &str) -> Option<PathBuf> {
    match Sources::from_env().checkout() {
        Ok(path) => Some(path),
        Err(why) => {
            switches::skip_or_fail(
                "VAKRA_REQUIRE_REF_CHECKOUT",
                &format!("no reference checkout for {what} ({why}): {HOW}"),
            );
            None
        }
    }
}

/// A checkout when one is found, for a test that checks more with one but runs without: `None`
/// says nothing, unless `VAKRA_REQUIRE_REF_CHECKOUT` is on, which fails the test.
#[track_caller]
pub fn optional_checkout(what: &str) -> Option<PathBuf> {
    if switches::required("VAKRA_REQUIRE_REF_CHECKOUT") {
        return checkout(what);
    }
    Sources::from_env().checkout().ok()
}

/// Where the reference's files may be found.
#[derive(Debug, Clone)]
pub struct Sources {
    /// A checkout (`VAKRA_REF`).
    pub checkout: Option<PathBuf>,
    /// The published data files (`shared/reference`).
    pub shared: PathBuf,
    /// The clone to make or reuse, if cloning is allowed.
    pub clone: Option<Clone>,
}

/// A pinned shallow clone: `commit` of `url`, kept in `cache`.
#[derive(Debug, Clone)]
pub struct Clone {
    pub url: String,
    pub commit: String,
    pub cache: PathBuf,
}

impl Sources {
    /// The sources the environment names (see the module's overview).
    pub fn from_env() -> Self {
        let checkout = std::env::var_os("VAKRA_REF")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        if let Some(path) = &checkout {
            assert!(
                path.is_dir(),
                "VAKRA_REF={} is not a folder",
                path.display()
            );
        }
        let fetch = std::env::var_os("VAKRA_REF_FETCH").is_none_or(|v| v != "0");
        Self {
            checkout,
            shared: paths::shared_dir().join("reference"),
            clone: fetch.then(|| Clone {
                url: std::env::var("VAKRA_REF_URL").unwrap_or_else(|_| URL.to_owned()),
                commit: COMMIT.to_owned(),
                cache: cache_dir(),
            }),
        }
    }

    /// The first source that has `relative`, or why none has.
    pub fn file(&self, relative: &str) -> Result<PathBuf, String> {
        if let Some(path) = self.checkout.as_ref().map(|c| c.join(relative)) {
            if path.exists() {
                return Ok(path);
            }
            return Err(format!("VAKRA_REF has no {}", path.display()));
        }
        let shared = self.shared.join(relative);
        if shared.exists() {
            return Ok(shared);
        }
        let clone = self
            .cloned()
            .map_err(|e| format!("{} is missing; {e}", shared.display()))?;
        let path = clone.join(relative);
        if path.exists() {
            Ok(path)
        } else {
            Err(format!("the clone has no {}", path.display()))
        }
    }

    /// `VAKRA_REF`, else the clone, or why neither is there.
    pub fn checkout(&self) -> Result<PathBuf, String> {
        match &self.checkout {
            Some(path) => Ok(path.clone()),
            None => self
                .cloned()
                .map_err(|e| format!("VAKRA_REF is unset; {e}")),
        }
    }

    fn cloned(&self) -> Result<PathBuf, String> {
        match &self.clone {
            Some(clone) => clone.fetch(),
            None => Err("cloning is off (VAKRA_REF_FETCH=0)".to_owned()),
        }
    }
}

impl Clone {
    /// The folder the clone lives in.
    pub fn dir(&self) -> PathBuf {
        let short = &self.commit[..self.commit.len().min(12)];
        self.cache.join(format!("vakra-ref-{short}"))
    }

    /// The clone's folder, cloned first when it is not in the cache: `commit` alone, depth 1, into
    /// a folder of its own that is renamed into place when complete (so an interrupted or
    /// concurrent clone never leaves a half folder where a whole one is expected). One clone runs
    /// at a time in a process, and a failure is remembered: the tests of a binary try once.
    pub fn fetch(&self) -> Result<PathBuf, String> {
        static FAILED: Mutex<BTreeMap<(String, PathBuf), String>> = Mutex::new(BTreeMap::new());
        let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
        let key = (self.url.clone(), self.dir());
        if let Some(why) = failed.get(&key) {
            return Err(why.clone());
        }
        let outcome = self.fetch_once();
        if let Err(why) = &outcome {
            failed.insert(key, why.clone());
        }
        outcome
    }

    fn fetch_once(&self) -> Result<PathBuf, String> {
        let dir = self.dir();
        if dir.join(".git").is_dir() {
            return Ok(dir);
        }
        std::fs::create_dir_all(&self.cache)
            .map_err(|e| format!("cannot make the cache {}: {e}", self.cache.display()))?;
        let partial = self.cache.join(format!(
            ".vakra-ref-partial-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&partial);
        let outcome = self.clone_into(&partial);
        if let Err(e) = outcome {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(format!(
                "cloning {} at {} failed: {e}",
                self.url, self.commit
            ));
        }
        if let Err(e) = std::fs::rename(&partial, &dir) {
            let _ = std::fs::remove_dir_all(&partial);
            if !dir.join(".git").is_dir() {
                return Err(format!("cannot move the clone to {}: {e}", dir.display()));
            }
        }
        Ok(dir)
    }

    fn clone_into(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        git(dir, &["init", "--quiet"])?;
        git(
            dir,
            &[
                "-c",
                "http.lowSpeedLimit=1000",
                "-c",
                "http.lowSpeedTime=60",
                "fetch",
                "--quiet",
                "--depth",
                "1",
                &self.url,
                &self.commit,
            ],
        )?;
        git(dir, &["checkout", "--quiet", "--detach", "FETCH_HEAD"])?;
        let head = git(dir, &["rev-parse", "HEAD"])?;
        if head.trim() != self.commit {
            return Err(format!("fetched {} instead", head.trim()));
        }
        Ok(())
    }
}

/// The cache folder: `VAKRA_REF_CACHE`, else `$XDG_CACHE_HOME/vakra-rs`, else
/// `~/.cache/vakra-rs`, else the system's temporary folder.
fn cache_dir() -> PathBuf {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("VAKRA_REF_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("vakra-rs")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/vakra-rs")))
        .unwrap_or_else(|| std::env::temp_dir().join("vakra-rs"))
}

/// Runs git in `dir` with no prompt, within [`FETCH_TIMEOUT`]: its stdout, or its stderr as the
/// error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + FETCH_TIMEOUT;
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "git {} took over {FETCH_TIMEOUT:?}",
                    args.join(" ")
                ));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    if status.success() {
        Ok(out)
    } else {
        Err(err.trim().replace('\n', "; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .expect("UTF-8")
            .trim()
            .to_owned()
    }

    /// A local repository with two commits of `data/file.txt` ("pinned", then "later"): the
    /// pinned commit's id.
    fn upstream(dir: &Path) -> String {
        run(dir, &["init", "--quiet"]);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/file.txt"), "pinned").unwrap();
        run(dir, &["add", "."]);
        run(dir, &["commit", "--quiet", "-m", "pinned"]);
        let pinned = run(dir, &["rev-parse", "HEAD"]);
        std::fs::write(dir.join("data/file.txt"), "later").unwrap();
        run(dir, &["commit", "--quiet", "-am", "later"]);
        pinned
    }

    fn url(dir: &Path) -> String {
        format!("file://{}", dir.display())
    }

    #[test]
    fn the_clone_is_the_pinned_commit_alone_and_is_reused_offline() {
        let up = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let commit = upstream(up.path());
        let clone = Clone {
            url: url(up.path()),
            commit: commit.clone(),
            cache: cache.path().into(),
        };
        let dir = clone.fetch().expect("clone the local repository");
        assert_eq!(dir, clone.dir());
        assert_eq!(
            std::fs::read_to_string(dir.join("data/file.txt")).unwrap(),
            "pinned"
        );
        assert_eq!(
            run(&dir, &["rev-list", "--count", "HEAD"]),
            "1",
            "a shallow clone"
        );
        assert_eq!(run(&dir, &["rev-parse", "HEAD"]), commit);
        let leftovers: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "only the clone is left: {leftovers:?}");

        drop(up);
        let again = clone
            .fetch()
            .expect("the cached clone, with the upstream gone");
        assert_eq!(again, dir);
    }

    #[test]
    fn a_failed_clone_says_why_and_leaves_nothing() {
        let up = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        upstream(up.path());
        let clone = Clone {
            url: url(up.path()),
            commit: "0".repeat(40),
            cache: cache.path().into(),
        };
        let err = clone.fetch().expect_err("no such commit");
        assert!(
            err.contains("cloning file://") && err.contains(&"0".repeat(40)),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);

        let nowhere = Clone {
            url: url(&up.path().join("none")),
            ..clone
        };
        let err = nowhere.fetch().expect_err("no repository");
        assert!(err.contains("failed"), "{err}");
    }

    #[test]
    fn a_file_comes_from_the_checkout_then_shared_then_the_clone() {
        let up = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let shared = tempfile::tempdir().unwrap();
        let checkout = tempfile::tempdir().unwrap();
        let commit = upstream(up.path());
        let clone = Clone {
            url: url(up.path()),
            commit,
            cache: cache.path().into(),
        };
        let mut sources = Sources {
            checkout: None,
            shared: shared.path().into(),
            clone: Some(clone),
        };

        let cloned = sources.file("data/file.txt").expect("from the clone");
        assert!(cloned.starts_with(cache.path()), "{}", cloned.display());
        assert!(
            sources
                .file("data/none")
                .unwrap_err()
                .contains("the clone has no")
        );

        std::fs::create_dir_all(shared.path().join("data")).unwrap();
        std::fs::write(shared.path().join("data/file.txt"), "shared").unwrap();
        assert_eq!(
            sources.file("data/file.txt").unwrap(),
            shared.path().join("data/file.txt")
        );

        sources.checkout = Some(checkout.path().into());
        let err = sources.file("data/file.txt").unwrap_err();
        assert!(
            err.contains("VAKRA_REF has no"),
            "a checkout is not completed from elsewhere: {err}"
        );
        std::fs::create_dir_all(checkout.path().join("data")).unwrap();
        std::fs::write(checkout.path().join("data/file.txt"), "checkout").unwrap();
        assert_eq!(
            sources.file("data/file.txt").unwrap(),
            checkout.path().join("data/file.txt")
        );
        assert_eq!(sources.checkout().unwrap(), checkout.path());
    }

    #[test]
    fn without_a_source_the_reason_names_each_place() {
        let shared = tempfile::tempdir().unwrap();
        let sources = Sources {
            checkout: None,
            shared: shared.path().into(),
            clone: None,
        };
        let err = sources.file("environment/bpo/data").unwrap_err();
        assert!(err.contains("environment/bpo/data is missing"), "{err}");
        assert!(err.contains("VAKRA_REF_FETCH=0"), "{err}");
        let err = sources.checkout().unwrap_err();
        assert!(err.contains("VAKRA_REF is unset"), "{err}");
    }
}
