//! Walks over an OpenAPI document that more than one layer takes: the
//! documents' own finishing (`openapi`) and test mode's reading of them
//! (which operations exist, which permissions each needs).

use utoipa::openapi::OpenApi;
use utoipa::openapi::path::Operation;

/// Every operation of a document.
pub fn operations(doc: &OpenApi) -> impl Iterator<Item = &Operation> {
    doc.paths.paths.values().flat_map(|item| [&item.get, &item.put, &item.post, &item.delete, &item.patch]).flatten()
}
