//! Conversion between [`DomainCatalog`] and its OpenAPI 3.1 document.

use std::path::Path;

use serde_json::{Value, json};
use utoipa::openapi::extensions::{Extensions, ExtensionsBuilder};
use utoipa::openapi::path::{
    HttpMethod, OperationBuilder, Parameter, ParameterBuilder, ParameterIn,
};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{
    Content, InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, RefOr, Required,
};

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
    let doc: OpenApi = serde_json::from_slice(&bytes).map_err(|source| CatalogError::Json {
        path: path.to_owned(),
        source,
    })?;
    from_openapi(doc).map_err(|message| CatalogError::Invalid {
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

/// The `/openapi.json` a client sees: every domain's paths in mount order, without the
/// server-side `x-vakra` extensions, after the `/metrics` route the reference's app has first.
pub fn merged_openapi<'a>(domains: impl IntoIterator<Item = &'a DomainCatalog>) -> OpenApi {
    let mut paths = PathsBuilder::new().path(
        "/metrics",
        utoipa::openapi::PathItem::new(
            HttpMethod::Get,
            OperationBuilder::new()
                .operation_id(Some("metrics_metrics_get"))
                .summary(Some("Metrics"))
                .description(Some("Endpoint that serves Prometheus metrics."))
                .response("200", json_response("Successful Response")),
        ),
    );
    for domain in domains {
        for op in &domain.operations {
            paths = paths.path(&op.path, path_item(op, false));
        }
    }
    OpenApiBuilder::new()
        .info(InfoBuilder::new().title("FastAPI").version("0.1.0"))
        .paths(paths)
        .build()
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

fn from_openapi(doc: OpenApi) -> Result<DomainCatalog, String> {
    let domain = extension(doc.extensions.as_ref(), DOCUMENT_EXTENSION)
        .ok_or_else(|| format!("missing the document extension {DOCUMENT_EXTENSION:?}"))?;
    let name = domain
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{DOCUMENT_EXTENSION}.name must be a string"))?
        .to_owned();
    if !is_valid_domain_name(&name) {
        return Err(format!("invalid domain name {name:?}"));
    }
    let source = domain
        .get("source")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut operations = Vec::new();
    for (path, item) in doc.paths.paths {
        if item.put.is_some()
            || item.post.is_some()
            || item.delete.is_some()
            || item.patch.is_some()
            || item.options.is_some()
            || item.head.is_some()
            || item.trace.is_some()
        {
            return Err(format!("{path}: only GET operations are supported"));
        }
        let op = item
            .get
            .ok_or_else(|| format!("{path}: no GET operation"))?;
        operations.push(operation(&path, op)?);
    }
    Ok(DomainCatalog {
        name,
        source,
        operations,
    })
}

fn extension<'a>(extensions: Option<&'a Extensions>, key: &str) -> Option<&'a Value> {
    extensions.and_then(|e| e.get(key))
}

fn operation(path: &str, op: utoipa::openapi::path::Operation) -> Result<Operation, String> {
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
    let program_value = extension(op.extensions.as_ref(), OPERATION_EXTENSION)
        .ok_or_else(|| at(format!("missing the {OPERATION_EXTENSION:?} extension")))?;
    let program: SqlProgram = serde_json::from_value(program_value.clone())
        .map_err(|e| at(format!("{OPERATION_EXTENSION}: {e}")))?;
    let mut params = Vec::new();
    for param in op.parameters.unwrap_or_default() {
        let RefOr::T(param) = param else {
            return Err(at("parameter references ($ref) are not supported".into()));
        };
        params.push(parameter_from(param).map_err(at)?);
    }
    Ok(Operation {
        path: path.to_owned(),
        summary: op.summary.unwrap_or_default(),
        operation_id,
        params,
        program,
    })
}

fn parameter_from(param: Parameter) -> Result<Param, String> {
    if !matches!(param.parameter_in, ParameterIn::Query) {
        return Err(format!(
            "parameter {:?}: only query parameters are supported",
            param.name
        ));
    }
    let schema = serde_json::to_value(&param.schema).unwrap_or(Value::Null);
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .and_then(ParamType::from_json_type)
        .ok_or_else(|| {
            format!(
                "parameter {:?}: schema type must be string, integer, number or boolean",
                param.name
            )
        })?;
    let required = matches!(param.required, Required::True);
    Ok(Param {
        default: if required {
            None
        } else {
            Some(schema.get("default").cloned().unwrap_or(Value::Null))
        },
        description: param.description.unwrap_or_default(),
        name: param.name,
        ty,
        required,
    })
}
