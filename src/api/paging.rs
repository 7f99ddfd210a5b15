//! Paged lists: `pageIndex` (1-based) and `pageSize` parameters, and absolute
//! `nextPage`/`previousPage` links that keep the other query parameters.

use axum::extract::{FromRequestParts, OriginalUri};
use axum::http::{header, request::Parts};

use crate::AppState;
use crate::error::{ApiError, Violations};
use crate::extract::QueryParams;

pub const MAX_PAGE_SIZE: i64 = 100;

/// The paging parameters every paged list documents (read by `PageRequest`).
#[derive(serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct PageParams {
    /// 1-based page number.
    #[param(minimum = 1, maximum = 1000000, default = 1, nullable = false)]
    page_index: Option<i32>,
    /// Items per page.
    #[param(minimum = 1, maximum = 100, default = 50, nullable = false)]
    page_size: Option<i32>,
}

#[derive(Clone, Copy, Debug)]
pub struct PageRequest {
    pub index: u64,
    pub size: u64,
}

impl PageRequest {
    pub fn from_query(query: &QueryParams, default_size: i64, violations: &mut Violations) -> Self {
        let index = query.int("pageIndex", 1, 1..=1_000_000, violations);
        let size = query.int("pageSize", default_size, 1..=MAX_PAGE_SIZE, violations);
        Self { index: index as u64, size: size as u64 }
    }

    pub fn offset(&self) -> u64 {
        (self.index - 1) * self.size
    }

    /// `(next, previous)` links; `None` at either end.
    pub fn links(&self, url: &RequestUrl, total: u64) -> (Option<String>, Option<String>) {
        let next = (self.index * self.size < total).then(|| url.with_page(self.index + 1));
        let previous = (self.index > 1).then(|| url.with_page(self.index - 1));
        (next, previous)
    }
}

/// The absolute URL of the current request: `--public-url` when set, else the
/// request's `Host`.
pub struct RequestUrl {
    base: String,
    path: String,
    query: Vec<(String, String)>,
}

impl RequestUrl {
    fn with_page(&self, index: u64) -> String {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        let mut replaced = false;
        for (key, value) in &self.query {
            if key == "pageIndex" {
                if !replaced {
                    query.append_pair(key, &index.to_string());
                    replaced = true;
                }
            } else {
                query.append_pair(key, value);
            }
        }
        if !replaced {
            query.append_pair("pageIndex", &index.to_string());
        }
        format!("{}{}?{}", self.base, self.path, query.finish())
    }
}

impl FromRequestParts<AppState> for RequestUrl {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let uri = OriginalUri::from_request_parts(parts, state)
            .await
            .map(|OriginalUri(uri)| uri)
            .unwrap_or_else(|_| parts.uri.clone());
        let base = match &state.public_url {
            Some(public) => public.trim_end_matches('/').to_owned(),
            None => {
                let host = parts
                    .headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .or_else(|| uri.authority().map(|a| a.as_str()))
                    .unwrap_or("localhost");
                format!("http://{host}")
            }
        };
        let QueryParams(query) = QueryParams::from_request_parts(parts, state).await?;
        Ok(Self { base, path: uri.path().to_owned(), query })
    }
}
