//! The `outputSchema` FastMCP 2.x advertises for the tools whose functions declare a return type:
//! the pydantic models' JSON schemas with references inlined and titles dropped, wrapped as
//! `{"result": …}` for unions and non-object types. Models are named by their pydantic class; their
//! descriptions come from the data folder's descriptions file.

use serde_json::{Map, Value, json};

use crate::descriptions::Descriptions;

fn string() -> Value {
    json!({"type": "string"})
}

fn integer() -> Value {
    json!({"type": "integer"})
}

fn number() -> Value {
    json!({"type": "number"})
}

fn array(items: Value) -> Value {
    json!({"items": items, "type": "array"})
}

/// FastMCP's own description of the result wrapper (library text, the same for every server).
const WRAPPER_DESCRIPTION: &str = "Generic wrapper for non-object return types.";

/// Builds model schemas, describing each model as the descriptions file does.
struct Models<'a>(&'a Descriptions);

impl Models<'_> {
    /// A pydantic model: every field required, in declaration order; `description` only when the
    /// descriptions file describes the class.
    fn model(&self, class: &str, fields: Vec<(&str, Value)>) -> Value {
        let required: Vec<Value> = fields.iter().map(|(name, _)| json!(name)).collect();
        let properties: Map<String, Value> = fields
            .into_iter()
            .map(|(name, schema)| (name.to_owned(), schema))
            .collect();
        let mut schema = Map::new();
        if let Some(description) = self.0.model(class) {
            schema.insert("description".into(), description.into());
        }
        schema.insert("properties".into(), Value::Object(properties));
        schema.insert("required".into(), Value::Array(required));
        schema.insert("type".into(), "object".into());
        Value::Object(schema)
    }

    /// `Union[<model>, RequisitionNotFoundResponse]`, wrapped.
    fn or_not_found(&self, model: Value) -> Value {
        let not_found = self.model(
            "RequisitionNotFoundResponse",
            vec![
                ("error", string()),
                ("message", string()),
                ("suggested_requisition_ids", array(string())),
            ],
        );
        wrapped(json!({"anyOf": [model, not_found]}))
    }

    fn impact(&self, class: &str) -> Value {
        self.model(
            class,
            vec![
                ("fill_rate_percentage", number()),
                ("time_to_fill_days", integer()),
                ("candidate_pool_size", integer()),
            ],
        )
    }
}

fn wrapped(result: Value) -> Value {
    json!({
        "description": WRAPPER_DESCRIPTION,
        "properties": {"result": result},
        "required": ["result"],
        "type": "object",
        "x-fastmcp-wrap-result": true,
    })
}

/// The output schema of a tool, `None` for tools without a declared return type.
pub(crate) fn output_schema(descriptions: &Descriptions, tool: &str) -> Option<Value> {
    let m = Models(descriptions);
    candidate_source_schema(&m, tool).or_else(|| skills_schema(&m, tool))
}

/// The output schemas of the candidate-source tools.
fn candidate_source_schema(m: &Models, tool: &str) -> Option<Value> {
    let schema = match tool {
        "candidate_source_sla_per_source" => m.or_not_found(m.model(
            "SLAPerSourceResponse",
            vec![(
                "metrics",
                array(m.model(
                    "SLAMetric",
                    vec![("source_name", string()), ("sla_percentage", integer())],
                )),
            )],
        )),
        "candidate_source_total_hires_by_source" => m.or_not_found(m.model(
            "TotalHiresBySourceResponse",
            vec![
                ("job_id", string()),
                (
                    "metrics",
                    array(m.model(
                        "HireMetric",
                        vec![("source_name", string()), ("total_hires", integer())],
                    )),
                ),
                ("total_hires", integer()),
            ],
        )),
        "candidate_source_candidate_volume_by_source" => m.or_not_found(m.model(
            "CandidateVolumeResponse",
            vec![
                ("job_id", string()),
                ("total_candidate_volume", integer()),
                (
                    "metrics",
                    array(m.model(
                        "VolumeMetric",
                        vec![
                            ("source_name", string()),
                            ("candidate_volume", integer()),
                            ("percentage", integer()),
                        ],
                    )),
                ),
                ("heading", string()),
            ],
        )),
        "candidate_source_funnel_conversion_by_source" => m.or_not_found(m.model(
            "FunnelConversionResponse",
            vec![
                ("job_id", string()),
                (
                    "metrics",
                    array(m.model(
                        "FunnelMetric",
                        vec![
                            ("source_name", string()),
                            ("first_round_review_percentage", number()),
                            ("interview_rate", number()),
                            ("offer_acceptance_rate", number()),
                        ],
                    )),
                ),
            ],
        )),
        "candidate_source_metadata_and_timeframe" => m.or_not_found(m.model(
            "MetadataResponse",
            vec![
                ("job_id", string()),
                ("time_frame_start", string()),
                ("time_frame_end", string()),
                ("data_last_updated", string()),
                ("total_requisitions_analysed", integer()),
            ],
        )),
        "candidate_source_definitions_and_methodology" => m.or_not_found(m.model(
            "DefinitionsResponse",
            vec![
                ("job_id", string()),
                (
                    "definitions",
                    json!({"additionalProperties": {"type": "string"}, "type": "object"}),
                ),
                ("calculation_notes", string()),
                ("top_metrics_considered", array(string())),
            ],
        )),
        "candidate_source_source_recommendation_summary" => m.or_not_found(m.model(
            "SourceRecommendationResponse",
            vec![
                ("total_requisitions", integer()),
                (
                    "metrics",
                    array(m.model(
                        "SourceSummaryMetric",
                        vec![
                            ("source_name", string()),
                            ("jobs_filled_percentage", integer()),
                            ("first_round_review_percentage", integer()),
                            ("offer_acceptance_rate", integer()),
                            ("total_hires", integer()),
                        ],
                    )),
                ),
            ],
        )),
        _ => return None,
    };
    Some(schema)
}

/// The output schemas of the skills tools.
fn skills_schema(m: &Models, tool: &str) -> Option<Value> {
    let schema = match tool {
        "skills_skill_analysis" => m.or_not_found(m.model(
            "SkillAnalysisResponse",
            vec![
                ("historical_jobs", integer()),
                ("input_skills", array(json!({}))),
                (
                    "historical_skills_with_analysis",
                    array(m.model(
                        "SkillWithAnalysis",
                        vec![
                            ("name", string()),
                            ("skill_occurrence", integer()),
                            ("correlation", string()),
                        ],
                    )),
                ),
            ],
        )),
        "skills_skill_impact_fill_rate" => m.or_not_found(m.model(
            "SkillImpactFillRateResponse",
            vec![
                ("skill_name", string()),
                ("impact", m.impact("ImpactMetrics")),
                ("compared_to_baseline", m.impact("ImpactMetrics")),
            ],
        )),
        "skills_skill_impact_sla" => m.or_not_found(m.model(
            "SkillImpactSLAResponse",
            vec![
                ("requisition_id", string()),
                ("skill_name", string()),
                ("sla_achievement_with_skill", integer()),
                ("sla_achievement_without_skill", integer()),
                ("delta", integer()),
            ],
        )),
        "skills_skill_relevance_justification" => m.or_not_found(m.model(
            "SkillRelevanceResponse",
            vec![
                ("requisition_id", string()),
                ("skill_name", string()),
                ("is_relevant", json!({"type": "boolean"})),
                (
                    "justification",
                    m.model(
                        "SkillJustificationData",
                        vec![
                            ("requisition_id", string()),
                            ("skill_name", string()),
                            ("sla_achievement_with_skill", integer()),
                            ("sla_achievement_without_skill", integer()),
                            ("delta", integer()),
                            ("impact", m.impact("SkillJustificationImpact")),
                            ("compared_to_baseline", m.impact("SkillJustificationImpact")),
                        ],
                    ),
                ),
            ],
        )),
        "skills_successful_posting_criteria" => m.model(
            "SuccessfulPostingResponse",
            vec![
                (
                    "criteria",
                    m.model(
                        "SuccessCriteria",
                        vec![
                            ("time_to_fill_threshold_days", integer()),
                            ("offer_acceptance_rate_min", integer()),
                            ("sla_compliance_min", integer()),
                            ("candidate_quality_rating_avg", number()),
                        ],
                    ),
                ),
                ("justification", string()),
            ],
        ),
        "skills_data_sources_used" => m.or_not_found(m.model(
            "DataSourcesResponse",
            vec![
                ("requisition_id", string()),
                ("datasets_used", array(string())),
                ("models_involved", array(string())),
            ],
        )),
        "skills_skill_summary" => wrapped(string()),
        _ => return None,
    };
    Some(schema)
}
