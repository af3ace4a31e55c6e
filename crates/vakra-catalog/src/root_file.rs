//! One folder or file of a data root, typed: its place and what it holds ([`crate::files`] lists
//! them).

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// One folder of a data root (relative to it; `.` is the root itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootDir {
    relative: &'static str,
}

impl RootDir {
    pub(crate) const fn at(relative: &'static str) -> Self {
        Self { relative }
    }

    /// The path relative to the root.
    pub const fn relative(&self) -> &'static str {
        self.relative
    }

    /// The folder in `root`.
    pub fn path(&self, root: &Path) -> PathBuf {
        root.join(self.relative)
    }

    /// A file of this folder holding a `T`.
    pub(crate) const fn file<T>(self, name: &'static str) -> RootFile<T> {
        RootFile {
            dir: self,
            name,
            holds: PhantomData,
        }
    }

    /// How the root names the file `name` of this folder (`capability1/texts.json`; a file of
    /// the root itself by its name alone), as `vakra import` lists the files it wrote.
    pub fn relative_file(&self, name: &str) -> String {
        if self.relative == "." {
            name.to_owned()
        } else {
            format!("{}/{name}", self.relative)
        }
    }
}

/// One file of a data root holding a `T`.
pub struct RootFile<T> {
    dir: RootDir,
    name: &'static str,
    holds: PhantomData<fn() -> T>,
}

impl<T> RootFile<T> {
    /// The path relative to the root (as `vakra import` lists the files it wrote).
    pub fn relative(&self) -> String {
        self.dir.relative_file(self.name)
    }

    /// The file's name inside its folder.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The folder that holds it.
    pub const fn dir(&self) -> RootDir {
        self.dir
    }

    /// The file in `root`.
    pub fn path(&self, root: &Path) -> PathBuf {
        self.dir.path(root).join(self.name)
    }

    /// Writes `text` as the file, creating its folder.
    pub fn write_text(&self, root: &Path, text: &str) -> std::io::Result<()> {
        let path = self.path(root);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, text)
    }
}

impl<T: DeserializeOwned> RootFile<T> {
    /// The file's content and its path (for reports); `None` when the root has none.
    pub fn read_optional(&self, root: &Path) -> Result<Option<(T, String)>, String> {
        let path = self.path(root);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(|value| Some((value, path.display().to_string())))
                .map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }
}

impl<T: Serialize> RootFile<T> {
    /// Writes `value` as indented JSON with a final newline, creating the folder.
    pub fn write_json(&self, root: &Path, value: &T) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        self.write_text(root, &(text + "\n"))
    }
}
