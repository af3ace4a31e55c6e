//! What a session asks for: a capability and its domains, and why a server cannot be built.

use vakra_endpoint::LoadError;

/// The benchmark's four capabilities; each has its own tool servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// SLOT-BIRD / SEL-BIRD data-manipulation tools.
    One,
    /// REST-BIRD dashboard APIs.
    Two,
    /// Multi-hop reasoning: REST-BIRD, and the BPO tools for the `bpo` domain.
    Three,
    /// Multi-turn: REST-BIRD plus document retrievers.
    Four,
}

impl std::str::FromStr for Capability {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        Ok(match s.trim() {
            "1" => Capability::One,
            "2" => Capability::Two,
            "3" => Capability::Three,
            "4" => Capability::Four,
            other => return Err(SpecError::Capability(other.to_owned())),
        })
    }
}

impl Capability {
    /// The capability's number, as the benchmark names it.
    pub fn number(self) -> u8 {
        match self {
            Capability::One => 1,
            Capability::Two => 2,
            Capability::Three => 3,
            Capability::Four => 4,
        }
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// What one MCP session serves: a capability and the reference's `MCP_DOMAIN` value, a
/// comma-separated list (items trimmed; empty means no filter).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionSpec {
    pub capability: Capability,
    pub domains: Vec<String>,
}

impl SessionSpec {
    /// Parses the `MCP_DOMAIN` form.
    pub fn new(capability: Capability, domain: &str) -> Self {
        let domains = domain
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .collect();
        Self {
            capability,
            domains,
        }
    }
}

/// Why a server could not be built for a session.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("capability must be one of 1, 2, 3, 4; got {0:?}")]
    Capability(String),
    #[error("unknown domain {domain:?}: no catalog in {root} matches it (known domains: {known})")]
    UnknownDomain {
        domain: String,
        root: String,
        known: String,
    },
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Catalog(#[from] vakra_catalog::CatalogError),
    #[error("the BPO data set cannot be read: {0}")]
    Bpo(#[from] vakra_bpo::BpoError),
    #[error("document retrievers: {0}")]
    Retrieval(#[from] vakra_retrieval::RetrievalError),
    #[error("document retrievers: {0}")]
    RetrievalStartup(String),
    #[error(transparent)]
    Chaining(#[from] vakra_chaining::ChainingError),
    #[error("capability 1 serves one domain at a time; got {0:?}")]
    OneDomain(String),
    /// A domain none of the already loaded REST-BIRD endpoints belongs to.
    #[error("unknown domain {0:?}")]
    NotLoaded(String),
}

impl SessionSpec {
    /// The reference's `bpo_router` serves its BPO server when `MCP_DOMAIN` is exactly `bpo`.
    pub(crate) fn is_bpo(&self) -> bool {
        self.capability == Capability::Three && self.domains == ["bpo"]
    }
}
