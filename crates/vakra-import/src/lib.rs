//! `vakra import`: a reference checkout (plus, optionally, a downloaded dataset) becomes a data
//! root.
//!
//! The reference defines REST-BIRD as FastAPI router modules under `environment/m3/rest/server/`,
//! mounted by `environment/m3/rest/app.py`. Those modules are parsed as Python source with
//! `vakra-pysyntax` — never executed — and every endpoint is translated into a catalog operation
//! ([`router`]): decorator arguments, typed `Query` parameters, the SQL and its bind tuple, the
//! fetch mode, the empty-result template and the success expression. Only the modules the app
//! mounts are imported, in mount order ([`app`]). Endpoints that do not fit the catalog are listed,
//! never silently dropped. The data files the other capabilities read are copied
//! ([`data_files`]), capability 1's mapping and tool texts are converted ([`chaining`]), the retriever tools' default descriptions are read ([`retriever_texts`]), and a dataset's databases and documents are linked in ([`dataset`]).

pub mod app;
pub mod chaining;
pub mod data_files;
pub mod dataset;
pub mod docstrings;
pub mod evaluator;
pub mod retriever_texts;
pub mod router;
pub mod runner_prompts;

use std::path::{Path, PathBuf};

use vakra_catalog::{DataRoot, DomainIndex};

pub use router::Unexpressed;

/// Where the reference keeps its REST-BIRD routers, relative to a checkout.
pub const ROUTERS_DIR: &str = "environment/m3/rest/server";
/// The reference's FastAPI app, which decides what is mounted.
pub const APP_FILE: &str = "environment/m3/rest/app.py";

/// What an import should read and write.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub vakra_repo: PathBuf,
    pub out: PathBuf,
    pub dataset: Option<PathBuf>,
    /// Draw a progress bar on stderr (only shown on a terminal).
    pub progress: bool,
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    pub domains: usize,
    pub endpoints: usize,
    pub unexpressed: Vec<Unexpressed>,
    pub data_files: Vec<String>,
    pub missing_data_files: Vec<String>,
    pub linked: Vec<String>,
}

impl ImportReport {
    /// The one-line summary printed last.
    pub fn summary(&self) -> String {
        format!(
            "imported {} domains, {} endpoints ({} not expressible); {} data files copied, {} linked",
            self.domains,
            self.endpoints,
            self.unexpressed.len(),
            self.data_files.len(),
            self.linked.len()
        )
    }
}

/// Why an import failed as a whole (a single endpoint that cannot be expressed does not fail it).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("{0}")]
    Layout(String),
    #[error(transparent)]
    Catalog(#[from] vakra_catalog::CatalogError),
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Runs an import.
pub fn import(options: &ImportOptions) -> Result<ImportReport, ImportError> {
    let repo = &options.vakra_repo;
    let app_path = repo.join(APP_FILE);
    if !app_path.is_file() {
        return Err(ImportError::Layout(format!(
            "{} is not a reference checkout: {APP_FILE} is missing",
            repo.display()
        )));
    }
    let mounted = app::mounted_modules(&app_path)?;
    let root = DataRoot::new(&options.out);
    let openapi_dir = root.openapi_dir();
    std::fs::create_dir_all(&openapi_dir).map_err(io_error(&openapi_dir))?;

    let bar = progress_bar(options.progress, mounted.len() as u64);
    let mut report = ImportReport::default();
    for module in &mounted {
        bar.set_message(module.clone());
        let label = format!("{ROUTERS_DIR}/{module}.py");
        let path = repo.join(&label);
        let source = std::fs::read_to_string(&path).map_err(io_error(&path))?;
        let catalog = router::import_router(module, &label, &source).map_err(|message| {
            ImportError::Parse {
                path: path.clone(),
                message,
            }
        })?;
        report.endpoints += catalog.catalog.operations.len();
        report.unexpressed.extend(catalog.unexpressed);
        vakra_catalog::write_domain(&root.domain_file(module)?, &catalog.catalog)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    report.domains = mounted.len();
    root.write_index(&DomainIndex { domains: mounted })?;

    let copied = data_files::copy_data_files(repo, &root)?;
    report.data_files = copied.copied;
    if let Some(texts) = docstrings::bpo_texts(repo)? {
        let file = vakra_catalog::files::BPO_DESCRIPTIONS;
        file.write_json(root.path(), &texts)
            .map_err(io_error(&file.path(root.path())))?;
        report.data_files.push(file.relative());
    }
    report
        .data_files
        .extend(chaining::import_chaining(repo, &root)?);
    report
        .data_files
        .extend(evaluator::import_prompts(repo, &root)?);
    report
        .data_files
        .extend(retriever_texts::import_retriever_texts(repo, &root)?);
    report
        .data_files
        .extend(runner_prompts::import_runner_prompts(repo, &root)?);
    report.missing_data_files = copied.missing;
    if let Some(dataset) = &options.dataset {
        report.linked = dataset::link_dataset(dataset, &root)?;
    }
    Ok(report)
}

fn progress_bar(enabled: bool, len: u64) -> indicatif::ProgressBar {
    if !enabled {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("importing {bar:30} {pos}/{len} {msg}")
    {
        bar.set_style(style);
    }
    bar
}
