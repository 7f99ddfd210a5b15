//! `#[rules]`: a field rule declared once, read by both `validator` (which enforces
//! it) and utoipa (which documents it). utoipa's attributes take literals only, so
//! a shared constant cannot feed both; this attribute writes the two from one.
//!
//! Put `#[rules]` above the derives of a request type (`#[rules(params)]` for an
//! `IntoParams` query type) and give fields `#[rule(...)]`:
//!
//! | rule | validator | document |
//! |---|---|---|
//! | `required` | `required` | `required = true` |
//! | `text(max = N)` | `length(max = N)`, no NUL | `max_length = N` |
//! | `text(max = N, required)` | also `required`, not blank | also `required = true, min_length = 1, pattern = "[^\t\n\r ]"` |
//! | `text(.., display)` | also no control or text-direction character (`validation::displayable`) | a pattern that refuses what it refuses, NUL included (and blank and zero-width-only text when `required`); past 2,048 characters the refused characters alone (a generator cannot draw the rest that long) |
//! | `text(.., nul_in_schema)` | the same | the patterns also refuse NUL (where generators should learn it) |
//! | `length(min = A, max = B)` | `length(...)` | `min_length`/`max_length`, or `min_items`/`max_items` for a list |
//! | `range(min = A, max = B)` | `range(...)` | `minimum`/`maximum` |
//! | `pattern = "re"` | `regex` (compiled once) | `pattern = "re"` |
//! | `pattern = NAME` | the same, for a pattern named once in `#[rules(patterns(NAME = "re"))]` | |
//! | `says = "words"` | a refused `pattern` answers "must be words" instead of the regex | |
//! | `nested` | `nested` | (the item type documents itself) |
//!
//! A text newtype (`struct WaitWord(pub String)`, the items of a list of text, which
//! `validator` cannot reach) takes `#[rule(text(max = N[, required]))]` on the struct:
//! the schema keywords go on the type, and `checked(self, v, pointer)` applies the
//! same rule through `switchboard_kernel::text::text`.
//!
//! Every `Option` field of a request body gets `#[serde(default, deserialize_with
//! = "::switchboard_kernel::extract::non_null")]` and `#[schema(nullable = false)]` (absent is
//! `None`, `null` is refused, as the documents say); of a query type,
//! `#[param(nullable = false)]`. A field's own `nullable`, `default` or
//! `deserialize_with` stands.
//!
//! The custom checks (`not_blank`, `no_nul`) live in `crate::validation`.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Fields, ItemStruct, Lit, Meta, Token, Type, parse_macro_input};

#[proc_macro_attribute]
pub fn rules(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = parse_macro_input!(args with Punctuated::<Meta, Token![,]>::parse_terminated);
    let mut item = parse_macro_input!(item as ItemStruct);
    let mut doc_attribute = "schema";
    let mut shared = Vec::new();
    let mut statics = Vec::new();
    for arg in &args {
        match arg {
            Meta::Path(path) if path.is_ident("params") => doc_attribute = "param",
            Meta::List(list) if list.path.is_ident("patterns") => {
                let named = match list.parse_args_with(Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated) {
                    Ok(named) => named,
                    Err(err) => return err.to_compile_error().into(),
                };
                for pattern in named {
                    let (Some(name), Expr::Lit(ExprLit { lit: Lit::Str(regex), .. })) =
                        (pattern.path.get_ident(), &pattern.value)
                    else {
                        return syn::Error::new_spanned(&pattern, "patterns(NAME = \"regex\", ..)")
                            .to_compile_error()
                            .into();
                    };
                    statics.push(regex_static(name, regex, quote!(pub(crate))));
                    shared.push((name.clone(), regex.clone()));
                }
            }
            other => {
                return syn::Error::new_spanned(
                    other,
                    "#[rules], #[rules(params)] or #[rules(patterns(NAME = \"regex\"))]",
                )
                .to_compile_error()
                .into();
            }
        }
    }
    if matches!(&item.fields, Fields::Unnamed(fields) if fields.unnamed.len() == 1) {
        return match text_newtype(&mut item) {
            Ok(tokens) => tokens.into(),
            Err(err) => err.to_compile_error().into(),
        };
    }
    let Fields::Named(fields) = &mut item.fields else {
        return syn::Error::new_spanned(&item, "#[rules] needs a struct with named fields, or a text newtype")
            .to_compile_error()
            .into();
    };
    for field in fields.named.iter_mut() {
        if is_option(&field.ty) {
            not_null(field, doc_attribute);
        }
        let mut rule_attrs = Vec::new();
        field.attrs.retain(|attr| {
            let is_rule = attr.path().is_ident("rule");
            if is_rule {
                rule_attrs.push(attr.clone());
            }
            !is_rule
        });
        let field_name = field.ident.clone().expect("named field");
        let is_list = is_list(&field.ty);
        let is_option = is_option(&field.ty);
        for attr in rule_attrs {
            match expand(&attr, &item.ident, &field_name, (is_list, is_option), &shared) {
                Ok(expansion) => {
                    let validate: Vec<_> = expansion.validate.into_iter().filter(|rule| !rule.is_empty()).collect();
                    let document = expansion.document;
                    if !validate.is_empty() {
                        field.attrs.push(syn::parse_quote!(#[validate(#(#validate),*)]));
                    }
                    if !document.is_empty() {
                        let path = format_ident!("{}", doc_attribute);
                        field.attrs.push(syn::parse_quote!(#[#path(#(#document),*)]));
                    }
                    statics.extend(expansion.statics);
                }
                Err(err) => return err.to_compile_error().into(),
            }
        }
    }
    quote!(#(#statics)* #item).into()
}

/// An optional field of a request: absent is `None`, `null` is refused
/// (`crate::extract::non_null`), and the document says it is not nullable.
/// What the field says itself stands: its own `nullable`, `default` or
/// `deserialize_with`. A query parameter is never null; it only gets the
/// document's `nullable = false`.
fn not_null(field: &mut syn::Field, doc_attribute: &str) {
    use quote::ToTokens;
    let says = |attribute: &str, key: &str| {
        field.attrs.iter().any(|attr| {
            attr.path().is_ident(attribute)
                && attr.meta.to_token_stream().into_iter().any(|token| match token {
                    proc_macro2::TokenTree::Group(group) => group.stream().into_iter().any(|t| t.to_string() == key),
                    _ => false,
                })
        })
    };
    if says(doc_attribute, "nullable") {
        return;
    }
    let deserializer = match (doc_attribute == "schema" && !says("serde", "deserialize_with"), says("serde", "default"))
    {
        (false, _) => None,
        (true, true) => Some(syn::parse_quote!(#[serde(deserialize_with = "::switchboard_kernel::extract::non_null")])),
        (true, false) => {
            Some(syn::parse_quote!(#[serde(default, deserialize_with = "::switchboard_kernel::extract::non_null")]))
        }
    };
    let path = format_ident!("{}", doc_attribute);
    field.attrs.push(syn::parse_quote!(#[#path(nullable = false)]));
    field.attrs.extend(deserializer);
}

/// `#[rule(text(..))]` on a one-field tuple struct of text.
fn text_newtype(item: &mut ItemStruct) -> syn::Result<Tokens> {
    let position = item.attrs.iter().position(|attr| attr.path().is_ident("rule"));
    let attr = position
        .map(|at| item.attrs.remove(at))
        .ok_or_else(|| syn::Error::new_spanned(&item.ident, "a text newtype needs #[rule(text(..))]"))?;
    let Meta::List(list) = attr.parse_args::<Meta>()? else {
        return Err(syn::Error::new_spanned(&attr, "a text newtype takes #[rule(text(max = N[, required]))]"));
    };
    if !list.path.is_ident("text") {
        return Err(syn::Error::new_spanned(&list, "a text newtype takes #[rule(text(max = N[, required]))]"));
    }
    let (mut max, mut required) = (None, false);
    for arg in list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)? {
        match &arg {
            Meta::Path(p) if p.is_ident("required") => required = true,
            Meta::NameValue(nv) if nv.path.is_ident("max") => max = Some(nv.value.clone()),
            other => return Err(syn::Error::new_spanned(other, "text takes `max = N` and `required`")),
        }
    }
    let max = max.ok_or_else(|| syn::Error::new_spanned(&list, "text needs `max = N`"))?;
    let document = if required {
        quote!(min_length = 1, max_length = #max, pattern = r"[^\t\n\r ]")
    } else {
        quote!(max_length = #max)
    };
    item.attrs.push(syn::parse_quote!(#[schema(#document)]));
    let name = &item.ident;
    Ok(quote! {
        #item
        impl #name {
            /// The text, checked against its declared rule (problems at `pointer`).
            pub fn checked(self, v: &mut ::switchboard_kernel::error::Violations, pointer: &str) -> String {
                ::switchboard_kernel::text::text(v, pointer, Some(self.0), #max, #required)
            }
        }
    })
}

#[derive(Default)]
struct Expansion {
    validate: Vec<Tokens>,
    document: Vec<Tokens>,
    statics: Vec<Tokens>,
}

fn expand(
    attr: &Attribute,
    owner: &syn::Ident,
    field: &syn::Ident,
    (is_list, is_option): (bool, bool),
    shared: &[(syn::Ident, syn::LitStr)],
) -> syn::Result<Expansion> {
    let mut out = Expansion::default();
    // A value that is not an `Option` is required by serde already (or has a default).
    let required = if is_option { quote!(required) } else { quote!() };
    let metas = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
    // What a refused pattern says, in words: read first, whatever its place.
    let mut says = None;
    for meta in &metas {
        if let Meta::NameValue(nv) = meta
            && nv.path.is_ident("says")
        {
            let Expr::Lit(ExprLit { lit: Lit::Str(words), .. }) = &nv.value else {
                return Err(syn::Error::new_spanned(&nv.value, "says takes a string literal"));
            };
            says = Some(words.value());
        }
    }
    for meta in metas {
        let name = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
        match (name.as_str(), &meta) {
            ("says", Meta::NameValue(_)) => {}
            ("required", Meta::Path(_)) => {
                out.validate.push(required.clone());
                out.document.push(quote!(required = true));
            }
            ("nested", Meta::Path(_)) => out.validate.push(quote!(nested)),
            ("text", Meta::List(list)) => {
                let args = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
                let mut max = None;
                let mut required_text = false;
                let mut nul_in_schema = false;
                let mut display = false;
                for arg in args {
                    match &arg {
                        Meta::Path(p) if p.is_ident("required") => required_text = true,
                        Meta::Path(p) if p.is_ident("display") => display = true,
                        Meta::Path(p) if p.is_ident("nul_in_schema") => nul_in_schema = true,
                        Meta::NameValue(nv) if nv.path.is_ident("max") => max = Some(nv.value.clone()),
                        other => {
                            return Err(syn::Error::new_spanned(
                                other,
                                "text takes `max = N`, `required`, `display` and `nul_in_schema`",
                            ));
                        }
                    }
                }
                let max = max.ok_or_else(|| syn::Error::new_spanned(list, "text needs `max = N`"))?;
                out.validate.push(quote!(length(max = #max)));
                out.validate.push(quote!(custom(function = ::switchboard_kernel::validation::no_nul)));
                if display {
                    out.validate.push(quote!(custom(function = ::switchboard_kernel::validation::displayable)));
                }
                if required_text {
                    out.validate.push(required.clone());
                    out.validate.push(quote!(custom(function = ::switchboard_kernel::validation::not_blank)));
                    out.document.push(quote!(required = true));
                    out.document.push(quote!(min_length = 1));
                }
                // What `display` and `no_nul` refuse, as a JSON Schema class: said in
                // the schema, so that generators do not draw it (NUL included, which
                // a pattern's own class would otherwise let them draw).
                const REFUSED: &str = r"\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufff9-\ufffb";
                match (required_text, nul_in_schema) {
                    // A text longer than a generator draws from a pattern (schemathesis
                    // builds a value past 2,048 characters without one, then checks it):
                    // the pattern says which characters are refused, and at least one
                    // visible character is said in words (the field's description),
                    // else drawing a 20,000-character value that holds one never ends.
                    _ if display && is_long(&max) => {
                        let any_length = format!("^[^{REFUSED}]*$");
                        out.document.push(quote!(pattern = #any_length));
                    }
                    _ if display => {
                        // At least one visible character: neither blank nor zero-width
                        // (`displayable`); blank text too where the text is not required.
                        let visible = format!(
                            "^[^{REFUSED}]*[^{REFUSED}\\t\\n\\r \\u00ad\\u034f\\u115f\\u1160\\u200b-\\u200d\\u2060-\\u2064\\u2800\\u3164\\ufeff\\uffa0][^{REFUSED}]*$"
                        );
                        let pattern = match required_text {
                            true => visible,
                            false => format!("^[\\t\\n\\r ]*$|{visible}"),
                        };
                        out.document.push(quote!(pattern = #pattern));
                    }
                    (true, false) => out.document.push(quote!(pattern = r"[^\t\n\r ]")),
                    (true, true) => out.document.push(quote!(pattern = r"^[^\u0000]*[^\u0000\t\n\r ][^\u0000]*$")),
                    (false, true) => out.document.push(quote!(pattern = r"^[^\u0000]*$")),
                    (false, false) => {}
                }
                out.document.push(quote!(max_length = #max));
            }
            ("length", Meta::List(list)) => {
                let (min, max) = bounds(list)?;
                let (min_doc, max_doc) = if is_list {
                    (quote!(min_items), quote!(max_items))
                } else {
                    (quote!(min_length), quote!(max_length))
                };
                let mut validate = Vec::new();
                if let Some(min) = &min {
                    validate.push(quote!(min = #min));
                    out.document.push(quote!(#min_doc = #min));
                }
                if let Some(max) = &max {
                    validate.push(quote!(max = #max));
                    out.document.push(quote!(#max_doc = #max));
                }
                out.validate.push(quote!(length(#(#validate),*)));
            }
            ("range", Meta::List(list)) => {
                let (min, max) = bounds(list)?;
                let mut validate = Vec::new();
                if let Some(min) = &min {
                    validate.push(quote!(min = #min));
                    out.document.push(quote!(minimum = #min));
                }
                if let Some(max) = &max {
                    validate.push(quote!(max = #max));
                    out.document.push(quote!(maximum = #max));
                }
                out.validate.push(quote!(range(#(#validate),*)));
            }
            ("pattern", Meta::NameValue(nv)) => {
                let (regex, pattern) = match &nv.value {
                    Expr::Lit(ExprLit { lit: Lit::Str(pattern), .. }) => {
                        let regex = format_ident!(
                            "{}_{}_PATTERN",
                            owner.to_string().to_uppercase(),
                            field.to_string().to_uppercase()
                        );
                        out.statics.push(regex_static(&regex, pattern, quote!()));
                        (regex, pattern.clone())
                    }
                    Expr::Path(path) => {
                        let found =
                            path.path.get_ident().and_then(|name| shared.iter().find(|(shared, _)| shared == name));
                        let Some((name, pattern)) = found else {
                            return Err(syn::Error::new_spanned(
                                &nv.value,
                                "not a pattern named in #[rules(patterns(..))]",
                            ));
                        };
                        (name.clone(), pattern.clone())
                    }
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "pattern takes a string literal or a shared pattern's name",
                        ));
                    }
                };
                let message = match &says {
                    Some(words) => format!("must be {words}"),
                    None => format!("must match the pattern {}", pattern.value()),
                };
                out.validate.push(quote!(regex(path = *#regex, message = #message)));
                out.document.push(quote!(pattern = #pattern));
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &meta,
                    "unknown rule: use required, nested, text(..), length(..), range(..), pattern = \"..\" or says = \"..\"",
                ));
            }
        }
    }
    Ok(out)
}

fn regex_static(name: &syn::Ident, pattern: &syn::LitStr, visibility: Tokens) -> Tokens {
    quote! {
        #visibility static #name: ::std::sync::LazyLock<::regex::Regex> =
            ::std::sync::LazyLock::new(|| ::regex::Regex::new(#pattern).expect("a valid pattern"));
    }
}

fn bounds(list: &syn::MetaList) -> syn::Result<(Option<Expr>, Option<Expr>)> {
    let args = list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)?;
    let (mut min, mut max) = (None, None);
    for arg in args {
        match &arg {
            Meta::NameValue(nv) if nv.path.is_ident("min") => min = Some(nv.value.clone()),
            Meta::NameValue(nv) if nv.path.is_ident("max") => max = Some(nv.value.clone()),
            other => return Err(syn::Error::new_spanned(other, "takes `min = A` and `max = B` (literals)")),
        }
    }
    Ok((min, max))
}

fn is_option(ty: &Type) -> bool {
    match ty {
        // A type passed through a `macro_rules!` fragment (`$ty:ty`) arrives wrapped.
        Type::Group(group) => is_option(&group.elem),
        Type::Path(path) => path.path.segments.last().is_some_and(|last| last.ident == "Option"),
        _ => false,
    }
}

/// `Vec<_>` or `Option<Vec<_>>`: its length bounds are item counts.
fn is_list(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else { return false };
    match last.ident.to_string().as_str() {
        "Vec" => true,
        "Option" => match &last.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| match arg {
                syn::GenericArgument::Type(inner) => is_list(inner),
                _ => false,
            }),
            _ => false,
        },
        _ => false,
    }
}

/// Characters past which a generator no longer draws a text from its pattern
/// (schemathesis: `MAX_GENERATED_PATTERN_LENGTH`, 2,048).
const LONGEST_DRAWN_TEXT: u64 = 2048;

/// Whether `text(max = N)` allows texts longer than `LONGEST_DRAWN_TEXT`
/// (`N` a literal; a constant is taken as short).
fn is_long(max: &syn::Expr) -> bool {
    match max {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => {
            n.base10_parse::<u64>().is_ok_and(|n| n > LONGEST_DRAWN_TEXT)
        }
        _ => false,
    }
}
