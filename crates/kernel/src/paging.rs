//! Paged lists: `pageIndex` (1-based) and `pageSize` parameters, and absolute
//! `nextPage`/`previousPage` links that keep the other query parameters.

use axum::extract::{FromRequestParts, OriginalUri};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use validator::Validate;

use crate::error::ApiError;
use crate::extract::{Query, query_pairs};

/// Where a paged list's links start (the application's state implements it):
/// `--public-url` when set, else the request's `Host`.
pub trait PublicBase: Send + Sync {
    fn base_url(&self, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> String;
}

/// `--public-url` when set, else `http://` and the request's `Host`: what
/// every `PublicBase` answers (and a state that is not one, such as test
/// mode's, when it writes a URL of this server into an answer).
pub fn base_url(public_url: Option<&str>, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> String {
    match public_url {
        Some(public) => public.trim_end_matches('/').to_owned(),
        None => {
            let host = headers
                .get(axum::http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .or_else(|| uri.authority().map(|a| a.as_str()))
                .unwrap_or("localhost");
            format!("http://{host}")
        }
    }
}

const DEFAULT_PAGE_SIZE: i32 = 50;

/// The paging parameters every paged list takes.
#[switchboard_macros::rules(params)]
#[derive(serde::Deserialize, utoipa::IntoParams, Validate)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PageParams {
    /// 1-based page number, 1 to 1,000,000 (1 when absent). A page past the last
    /// is empty (with the links and `total`); the maximum bounds how deep a client
    /// can ask, not the data.
    #[rule(range(min = 1, max = 1000000))]
    #[param(default = 1)]
    page_index: Option<i32>,
    /// Items per page, 1 to 100 (50 when absent).
    #[rule(range(min = 1, max = 100))]
    #[param(default = 50)]
    page_size: Option<i32>,
}

#[derive(Clone, Copy, Debug)]
pub struct PageRequest {
    pub index: u64,
    pub size: u64,
}

impl PageRequest {
    pub fn offset(&self) -> u64 {
        (self.index - 1) * self.size
    }
}

/// A paged list's request: the page, the list's own parameters `T`, and the
/// request's URL for the links. Every bad parameter of both is named in one 400.
pub struct Paged<T> {
    pub page: PageRequest,
    pub params: T,
    url: RequestUrl,
}

impl<T> Paged<T> {
    /// `(next, previous)` links; `None` at either end.
    pub fn links(&self, total: u64) -> (Option<String>, Option<String>) {
        let PageRequest { index, size } = self.page;
        let next = (index * size < total).then(|| self.url.with_page(index + 1));
        let previous = (index > 1).then(|| self.url.with_page(index - 1));
        (next, previous)
    }
}

impl<S: PublicBase, T: DeserializeOwned + Validate + Send> FromRequestParts<S> for Paged<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let (page, mut problems) = Query::<PageParams>::from_request_parts(parts, state).await?.into_parts();
        let (params, more) = Query::<T>::from_request_parts(parts, state).await?.into_parts();
        problems.extend(more);
        let params = problems.finish(params)?;
        let index = page.page_index.unwrap_or(1);
        let size = page.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
        let page = PageRequest { index: index as u64, size: size as u64 };
        Ok(Paged { page, params, url: RequestUrl::from_request_parts(parts, state).await? })
    }
}

/// The absolute URL of the current request: `--public-url` when set, else the
/// request's `Host`.
struct RequestUrl {
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

impl<S: PublicBase> FromRequestParts<S> for RequestUrl {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let uri = OriginalUri::from_request_parts(parts, state)
            .await
            .map(|OriginalUri(uri)| uri)
            .unwrap_or_else(|_| parts.uri.clone());
        let base = state.base_url(&parts.headers, &uri);
        let query = query_pairs(uri.query().unwrap_or_default());
        Ok(Self { base, path: uri.path().to_owned(), query })
    }
}
