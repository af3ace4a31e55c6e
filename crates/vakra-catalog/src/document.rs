//! Conversion between [`DomainCatalog`] and its OpenAPI 3.1 document.

use std::path::Path;

use indexmap::IndexMap;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, Parameter, ParameterBuilder, ParameterIn,
};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{Content, InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, Required};

use crate::model::{DomainCatalog, Operation, Param, ParamType, SqlProgram, python_title};
use crate::{CatalogError, root::is_valid_domain_name};

const OPERATION_EXTENSION: &str = "x-vakra";
const DOCUMENT_EXTENSION: &str = "x-vakra-domain";

/// Reads one domain catalog, checking everything the server relies on.
pub fn read_domain(path: &Path) -> Result<DomainCatalog, CatalogError> {
    let bytes = std::fs::read(path).map_err(|source| CatalogError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_domain(&bytes, path)
}

/// Parses and checks the bytes of a catalog file; `path` only names it in errors.
pub fn parse_domain(bytes: &[u8], path: &Path) -> Result<DomainCatalog, CatalogError> {
    let doc: RawDocument = serde_json::from_slice(bytes).map_err(|source| CatalogError::Json {
        path: path.to_owned(),
        source,
    })?;
    from_raw(doc).map_err(|message| CatalogError::Invalid {
        path: path.to_owned(),
        message,
    })
}

/// Writes one domain catalog as pretty-printed OpenAPI 3.1 JSON.
pub fn write_domain(path: &Path, catalog: &DomainCatalog) -> Result<(), CatalogError> {
    let io = |source| CatalogError::Io {
        path: path.to_owned(),
        source,
    };
    let text = to_openapi(catalog, true)
        .to_pretty_json()
        .map_err(|source| CatalogError::Json {
            path: path.to_owned(),
            source,
        })?;
    std::fs::write(path, text + "\n").map_err(io)
}

/// The `/openapi.json` a client sees: the operations' paths in the order given (mount order),
/// without the server-side `x-vakra` extensions, after the `/metrics` route the reference's app
/// has first. Written piece by piece: building the whole utoipa model of 7,000 operations first
/// would cost a hundred megabytes of memory for a 6 MB document.
pub fn merged_openapi_json<'a>(operations: impl IntoIterator<Item = &'a Operation>) -> String {
    let mut out = String::from(
        r#"{"openapi":"3.1.0","info":{"title":"FastAPI","version":"0.1.0"},"paths":{"#,
    );
    let metrics = utoipa::openapi::PathItem::new(
        HttpMethod::Get,
        OperationBuilder::new()
            .operation_id(Some("metrics_metrics_get"))
            .summary(Some("Metrics"))
            .description(Some("Endpoint that serves Prometheus metrics."))
            .response("200", json_response("Successful Response")),
    );
    push_path(&mut out, "/metrics", &metrics);
    for op in operations {
        out.push(',');
        push_path(&mut out, &op.path, &path_item(op, false));
    }
    out.push_str("}}");
    out
}

fn push_path(out: &mut String, path: &str, item: &utoipa::openapi::PathItem) {
    out.push_str(&Value::String(path.to_owned()).to_string());
    out.push(':');
    out.push_str(&serde_json::to_string(item).unwrap_or_else(|_| "{}".into()));
}

fn to_openapi(catalog: &DomainCatalog, with_program: bool) -> OpenApi {
    let mut paths = PathsBuilder::new();
    for op in &catalog.operations {
        paths = paths.path(&op.path, path_item(op, with_program));
    }
    let mut doc = OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title(format!("REST-BIRD {}", catalog.name))
                .version("1"),
        )
        .paths(paths)
        .build();
    doc.extensions = Some(
        ExtensionsBuilder::new()
            .add(
                DOCUMENT_EXTENSION,
                json!({"name": catalog.name, "source": catalog.source}),
            )
            .build(),
    );
    doc
}

fn json_response(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(ObjectBuilder::new().schema_type(Type::Object).build())),
        )
        .build()
}

fn path_item(op: &Operation, with_program: bool) -> utoipa::openapi::PathItem {
    let mut builder = OperationBuilder::new()
        .operation_id(Some(&op.operation_id))
        .summary(Some(&op.summary))
        .response("200", json_response("Successful Response"))
        .response("422", json_response("Validation Error"));
    for param in &op.params {
        builder = builder.parameter(parameter(param));
    }
    let mut operation = builder.build();
    if with_program {
        let program = serde_json::to_value(&op.program).unwrap_or(Value::Null);
        operation.extensions = Some(
            ExtensionsBuilder::new()
                .add(OPERATION_EXTENSION, program)
                .build(),
        );
    }
    utoipa::openapi::PathItem::new(HttpMethod::Get, operation)
}

fn parameter(param: &Param) -> Parameter {
    let ty = match param.ty {
        ParamType::Str => Type::String,
        ParamType::Int => Type::Integer,
        ParamType::Float => Type::Number,
        ParamType::Bool => Type::Boolean,
    };
    let schema = ObjectBuilder::new()
        .schema_type(ty)
        .description(Some(&param.description))
        .default(param.default.clone())
        .title(Some(python_title(&param.name)));
    ParameterBuilder::new()
        .name(&param.name)
        .parameter_in(ParameterIn::Query)
        .required(if param.required {
            Required::True
        } else {
            Required::False
        })
        .description(Some(&param.description))
        .schema(Some(schema))
        .build()
}

/// The fields of a catalog document the server needs. Reading through these plain structs instead
/// of utoipa's model (whose untagged enums make serde try variant after variant) cuts the load of
/// all 61 benchmark catalogs several times.
#[derive(Deserialize)]
struct RawDocument {
    openapi: String,
    #[serde(rename = "x-vakra-domain")]
    domain: Option<RawDomain>,
    #[serde(default)]
    paths: IndexMap<String, RawPathItem>,
}

#[derive(Deserialize)]
struct RawDomain {
    name: String,
    source: Option<String>,
}

#[derive(Deserialize)]
struct RawPathItem {
    get: Option<RawOperation>,
    put: Option<IgnoredAny>,
    post: Option<IgnoredAny>,
    delete: Option<IgnoredAny>,
    patch: Option<IgnoredAny>,
    options: Option<IgnoredAny>,
    head: Option<IgnoredAny>,
    trace: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawOperation {
    operation_id: Option<String>,
    summary: Option<String>,
    #[serde(default)]
    parameters: Vec<RawParam>,
    #[serde(rename = "x-vakra")]
    program: Option<Value>,
}

#[derive(Deserialize)]
struct RawParam {
    #[serde(rename = "$ref")]
    reference: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(rename = "in", default)]
    location: String,
    #[serde(default)]
    required: bool,
    description: Option<String>,
    #[serde(default)]
    schema: Map<String, Value>,
}

fn from_raw(doc: RawDocument) -> Result<DomainCatalog, String> {
    if !doc.openapi.starts_with("3.1") {
        return Err(format!("openapi version {:?} is not 3.1", doc.openapi));
    }
    let domain = doc
        .domain
        .ok_or_else(|| format!("missing the document extension {DOCUMENT_EXTENSION:?}"))?;
    if !is_valid_domain_name(&domain.name) {
        return Err(format!("invalid domain name {:?}", domain.name));
    }
    let mut operations = Vec::with_capacity(doc.paths.len());
    for (path, item) in doc.paths {
        let others = [
            &item.put,
            &item.post,
            &item.delete,
            &item.patch,
            &item.options,
            &item.head,
            &item.trace,
        ];
        if others.iter().any(|m| m.is_some()) {
            return Err(format!("{path}: only GET operations are supported"));
        }
        let op = item
            .get
            .ok_or_else(|| format!("{path}: no GET operation"))?;
        operations.push(operation(&path, op)?);
    }
    Ok(DomainCatalog {
        name: domain.name,
        source: domain.source,
        operations,
    })
}

fn operation(path: &str, op: RawOperation) -> Result<Operation, String> {
    if !path.starts_with('/') || path.contains(['?', '#', ' ', '{']) {
        return Err(format!(
            "{path}: paths must start with '/' and have no query, spaces or templates"
        ));
    }
    let operation_id = op
        .operation_id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| format!("{path}: missing operationId"))?;
    let at = |message: String| format!("{path} ({operation_id}): {message}");
    let program_value = op
        .program
        .ok_or_else(|| at(format!("missing the {OPERATION_EXTENSION:?} extension")))?;
    let program: SqlProgram = serde_json::from_value(program_value)
        .map_err(|e| at(format!("{OPERATION_EXTENSION}: {e}")))?;
    let params = op
        .parameters
        .into_iter()
        .map(parameter_from)
        .collect::<Result<Vec<_>, _>>()
        .map_err(at)?;
    let mut names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(at(format!("parameter {:?} is declared twice", pair[0])));
    }
    Ok(Operation {
        path: path.to_owned(),
        summary: op.summary.unwrap_or_default(),
        operation_id,
        params,
        program,
    })
}

fn parameter_from(param: RawParam) -> Result<Param, String> {
    if param.reference.is_some() {
        return Err("parameter references ($ref) are not supported".into());
    }
    if param.name.is_empty() {
        return Err("a parameter has no name".into());
    }
    if param.location != "query" {
        return Err(format!(
            "parameter {:?}: only query parameters are supported",
            param.name
        ));
    }
    let ty = param
        .schema
        .get("type")
        .and_then(Value::as_str)
        .and_then(ParamType::from_json_type)
        .ok_or_else(|| {
            format!(
                "parameter {:?}: schema type must be string, integer, number or boolean",
                param.name
            )
        })?;
    Ok(Param {
        default: if param.required {
            None
        } else {
            Some(param.schema.get("default").cloned().unwrap_or(Value::Null))
        },
        description: param.description.unwrap_or_default(),
        name: param.name,
        ty,
        required: param.required,
    })
}
