//! The 32 tools in the reference server's declaration order: their listing (input and output
//! schema; descriptions come from the data folder) and the function that answers each.

mod candidate_source;
mod candidate_source_errors;
mod common;
mod schema;
mod skills;
mod skills_errors;

use serde_json::{Map, Value, json};

use crate::data::BpoData;
use crate::state::SessionState;
pub(crate) use schema::output_schema;

/// How a parameter is typed in the reference's function signature.
#[derive(Clone, Copy)]
pub(crate) enum ParamKind {
    /// `str` with no default.
    Str,
    /// `str = "<default>"`.
    StrDefault(&'static str),
    /// `str = None`: the default is null, but an explicit null is still rejected.
    StrDefaultNone,
    /// `Optional[List[str]] = None`.
    OptionalStrList,
}

pub(crate) struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
}

/// A validated argument value.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Str(String),
    Null,
    List(Vec<String>),
}

/// Validated arguments in parameter order, defaults filled in.
pub(crate) struct Args(pub Vec<Arg>);

impl Args {
    /// The `i`th argument as a string (`None` for a null default).
    pub fn str(&self, i: usize) -> Option<&str> {
        match self.0.get(i) {
            Some(Arg::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The `i`th argument as a list (`None` for null).
    pub fn list(&self, i: usize) -> Option<&[String]> {
        match self.0.get(i) {
            Some(Arg::List(items)) => Some(items),
            _ => None,
        }
    }
}

/// What the reference's function declares it returns, which decides `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returns {
    /// A union or non-object type: FastMCP wraps it as `{"result": …}`.
    Wrapped,
    /// A plain pydantic model: the object itself.
    Model,
    /// No annotation: objects are mirrored, anything else has no structured content.
    Untyped,
}

/// A tool's answer before MCP encoding.
pub(crate) enum Outcome {
    /// The returned value; null means the function returned `None`.
    Value(Value),
    /// A returned JSON object, already serialized compactly (for large answers).
    Json(String),
    /// The function raised `Exception(<text>)`.
    Raise(String),
}

pub(crate) struct Call<'a> {
    pub data: &'a BpoData,
    pub state: &'a mut SessionState,
    pub args: Args,
}

impl Call<'_> {
    /// The first argument, `requisition_id` in every tool that takes arguments.
    pub fn requisition_id(&self) -> &str {
        self.args.str(0).unwrap_or_default()
    }
}

pub(crate) struct ToolDef {
    pub name: &'static str,
    pub params: &'static [Param],
    pub returns: Returns,
    pub run: fn(&mut Call) -> Outcome,
}

const REQ: Param = Param {
    name: "requisition_id",
    kind: ParamKind::Str,
};
const REQ_ONLY: &[Param] = &[REQ];
const REQ_SKILL: &[Param] = &[
    REQ,
    Param {
        name: "skill_name",
        kind: ParamKind::Str,
    },
];
const REQ_SOURCE: &[Param] = &[
    REQ,
    Param {
        name: "source_name",
        kind: ParamKind::StrDefault("Dice"),
    },
];

macro_rules! tool {
    ($name:literal, $params:expr, $returns:ident, $run:path) => {
        ToolDef {
            name: $name,
            params: $params,
            returns: Returns::$returns,
            run: $run,
        }
    };
}

/// Every tool, in the order `tools/list` shows them.
pub(crate) static TOOLS: [ToolDef; 32] = [
    tool!(
        "candidate_source_sla_per_source",
        REQ_ONLY,
        Wrapped,
        candidate_source::sla_per_source
    ),
    tool!(
        "candidate_source_total_hires_by_source",
        REQ_ONLY,
        Wrapped,
        candidate_source::total_hires_by_source
    ),
    tool!(
        "candidate_source_candidate_volume_by_source",
        &[
            REQ,
            Param {
                name: "sources",
                kind: ParamKind::OptionalStrList,
            },
        ],
        Wrapped,
        candidate_source::candidate_volume_by_source
    ),
    tool!(
        "candidate_source_funnel_conversion_by_source",
        REQ_ONLY,
        Wrapped,
        candidate_source::funnel_conversion_by_source
    ),
    tool!(
        "candidate_source_metadata_and_timeframe",
        REQ_ONLY,
        Wrapped,
        candidate_source::metadata_and_timeframe
    ),
    tool!(
        "candidate_source_definitions_and_methodology",
        REQ_ONLY,
        Wrapped,
        candidate_source::definitions_and_methodology
    ),
    tool!(
        "candidate_source_source_recommendation_summary",
        REQ_ONLY,
        Wrapped,
        candidate_source::source_recommendation_summary
    ),
    tool!(
        "skills_skill_analysis",
        REQ_ONLY,
        Wrapped,
        skills::skill_analysis
    ),
    tool!(
        "skills_skill_impact_fill_rate",
        REQ_SKILL,
        Wrapped,
        skills::skill_impact_fill_rate
    ),
    tool!(
        "skills_skill_impact_sla",
        REQ_SKILL,
        Wrapped,
        skills::skill_impact_sla
    ),
    tool!(
        "skills_skill_relevance_justification",
        REQ_SKILL,
        Wrapped,
        skills::skill_relevance_justification
    ),
    tool!(
        "skills_successful_posting_criteria",
        &[],
        Model,
        skills::successful_posting_criteria
    ),
    tool!(
        "skills_data_sources_used",
        REQ_ONLY,
        Wrapped,
        skills::data_sources_used
    ),
    tool!(
        "skills_skill_summary",
        REQ_ONLY,
        Wrapped,
        skills_errors::skill_summary
    ),
    tool!(
        "candidate_source_source_sla_score",
        REQ_SOURCE,
        Untyped,
        candidate_source_errors::source_sla_score
    ),
    tool!(
        "candidate_source_inactive_sources",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::inactive_sources
    ),
    tool!(
        "candidate_source_candidate_pipeline_status",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::candidate_pipeline_status
    ),
    tool!(
        "candidate_source_source_sla_check",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::source_sla_check
    ),
    tool!(
        "candidate_source_funnel_status",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::funnel_status
    ),
    tool!(
        "candidate_source_bulk_source_data",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::bulk_source_data
    ),
    tool!(
        "skills_model_registry",
        REQ_ONLY,
        Untyped,
        skills_errors::model_registry
    ),
    tool!(
        "skills_skill_lookup",
        &[
            REQ,
            Param {
                name: "skill_name",
                kind: ParamKind::StrDefaultNone,
            },
        ],
        Untyped,
        skills_errors::skill_lookup
    ),
    tool!(
        "candidate_source_source_metrics_lite",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::source_metrics_lite
    ),
    tool!(
        "candidate_source_volume_report",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::volume_report
    ),
    tool!(
        "candidate_source_full_candidate_details",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::full_candidate_details
    ),
    tool!(
        "candidate_source_source_directory",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::source_directory
    ),
    tool!(
        "skills_skill_deep_analysis",
        REQ_ONLY,
        Untyped,
        skills_errors::skill_deep_analysis
    ),
    tool!(
        "candidate_source_sla_extended",
        REQ_SOURCE,
        Untyped,
        candidate_source_errors::sla_extended
    ),
    tool!(
        "skills_analyze_skill_match",
        &[
            REQ,
            Param {
                name: "skill_id",
                kind: ParamKind::Str,
            },
        ],
        Untyped,
        skills_errors::analyze_skill_match
    ),
    tool!(
        "candidate_source_requisition_details",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::requisition_details
    ),
    tool!(
        "candidate_source_list_all_sources",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::list_all_sources
    ),
    tool!(
        "candidate_source_batch_metrics",
        REQ_ONLY,
        Untyped,
        candidate_source_errors::batch_metrics
    ),
];

pub(crate) fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The tool's `inputSchema` as FastMCP 2.x derives it from the function signature.
pub(crate) fn input_schema(params: &[Param]) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let schema = match param.kind {
            ParamKind::Str => {
                required.push(Value::from(param.name));
                json!({"type": "string"})
            }
            ParamKind::StrDefault(default) => json!({"default": default, "type": "string"}),
            ParamKind::StrDefaultNone => json!({"default": null, "type": "string"}),
            ParamKind::OptionalStrList => json!({
                "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                "default": null
            }),
        };
        properties.insert(param.name.into(), schema);
    }
    let mut schema = Map::new();
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("type".into(), "object".into());
    schema
}
