//! The tools explorer: a web page, served by `vakra serve` at `/explorer`, to browse the
//! capabilities, domains and tools of a data root and to call tools in a session.
//!
//! The page is plain HTML, JavaScript and CSS compiled into the binary (no build step, no
//! toolchain at run time). It is a client of the real MCP endpoints (`/mcp/<capability>/<domain>`,
//! streamable HTTP) and keeps one MCP session per domain, so what it shows — tool lists, result
//! texts, `isError` — is what an agent sees. The only route of its own besides the page is
//! `GET /explorer/api/domains`, the list of what can be opened, derived from what the server
//! loaded.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Serialize;
use vakra_endpoint::RestBird;
use vakra_mcp::ServerOptions;

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

/// What the page may open: the capabilities and, for each, the domains a session can serve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing {
    /// Capabilities 1 to 4, in order.
    pub capabilities: Vec<CapabilityEntry>,
}

/// One capability in the listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CapabilityEntry {
    /// The capability's number (the `<capability>` of `/mcp/<capability>/<domain>`).
    pub capability: u8,
    /// A short name for people.
    pub title: &'static str,
    /// The domains a session of this capability can open.
    pub domains: Vec<DomainEntry>,
    /// Why the capability has no domains when its data could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// One domain in the listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DomainEntry {
    /// The domain (the `<domain>` of `/mcp/<capability>/<domain>`).
    pub name: String,
    /// Capability 1: the domain's universe ids (values for `get_data`'s `tool_universe_id`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub universes: Vec<String>,
}

impl DomainEntry {
    fn named(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            universes: Vec::new(),
        }
    }
}

struct Explorer {
    options: ServerOptions,
    bird: Arc<RestBird>,
}

/// The explorer's routes under `/explorer`, for the data the server loaded.
pub fn router(options: ServerOptions, bird: Arc<RestBird>) -> Router {
    Router::new()
        .route(
            "/explorer",
            get(|| async { Redirect::permanent("/explorer/") }),
        )
        .route(
            "/explorer/",
            get(|| page(INDEX_HTML, "text/html; charset=utf-8")),
        )
        .route(
            "/explorer/app.js",
            get(|| page(APP_JS, "text/javascript; charset=utf-8")),
        )
        .route(
            "/explorer/style.css",
            get(|| page(STYLE_CSS, "text/css; charset=utf-8")),
        )
        .route("/explorer/api/domains", get(domains))
        .with_state(Arc::new(Explorer { options, bird }))
}

async fn page(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn domains(State(explorer): State<Arc<Explorer>>) -> axum::Json<Listing> {
    axum::Json(listing(&explorer.options, &explorer.bird))
}

/// The listing: capability 1 from the universe mapping, 2 and 4 from the REST-BIRD catalogs,
/// 3 from the catalogs plus `bpo` when the data root has the BPO data set.
pub fn listing(options: &ServerOptions, bird: &RestBird) -> Listing {
    let rest: Vec<DomainEntry> = bird
        .domains()
        .iter()
        .map(|d| DomainEntry::named(&d.name))
        .collect();
    let (chaining, problem) = match options.chaining_data() {
        Ok(data) => {
            let universes = &data.universes;
            let domains = universes
                .domains()
                .into_iter()
                .map(|d| DomainEntry {
                    name: d.to_owned(),
                    universes: universes.ids_of_domain(d).map(str::to_owned).collect(),
                })
                .collect();
            (domains, None)
        }
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut multihop = rest.clone();
    if options.bpo_dir().is_dir() {
        multihop.push(DomainEntry::named("bpo"));
    }
    let entry = |capability, title, domains| CapabilityEntry {
        capability,
        title,
        domains,
        problem: None,
    };
    Listing {
        capabilities: vec![
            CapabilityEntry {
                problem,
                ..entry(1, "API chaining (SLOT-BIRD / SEL-BIRD)", chaining)
            },
            entry(2, "Dashboard APIs (REST-BIRD)", rest.clone()),
            entry(3, "Multi-hop reasoning (REST-BIRD, BPO)", multihop),
            entry(4, "Multi-turn (REST-BIRD and document retrievers)", rest),
        ],
    }
}
