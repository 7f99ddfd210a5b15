//! Whether an SVG logo is only a picture. The logo is served back to browsers
//! (form pages show it), so one that can run script, load something or expand
//! entities is refused rather than cleaned: what is stored is what was sent.
//!
//! The check parses the XML (quick-xml) and allows what it knows, rather than
//! looking for bad words in the text: entities and character references are
//! decoded before any value is read (`&#106;avascript:` is `javascript:`), and
//! white space and control characters are dropped from link values
//! (`java&#x09;script:` too).

use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// Drawing elements, by local name. Not allowed, among others: `script`,
/// `foreignObject`, `style` (CSS can load and `@import`), `image` and `feImage`
/// (they load), `a` (a link), the animation elements (they can set `href`),
/// `iframe`, `embed`, `object`.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "defs",
    "symbol",
    "use",
    "title",
    "desc",
    "metadata",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "textPath",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "mask",
    "pattern",
    "marker",
    "filter",
    "feGaussianBlur",
    "feOffset",
    "feBlend",
    "feColorMatrix",
    "feComposite",
    "feFlood",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feDropShadow",
];

/// Why an SVG is refused, or `Ok` for a plain picture.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    let mut reader = Reader::from_reader(bytes);
    let mut buf = Vec::new();
    let mut open_elements = 0usize;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|err| format!("is not well-formed XML ({err})"))?;
        match event {
            Event::Start(element) => {
                check_element(&element)?;
                open_elements += 1;
            }
            Event::Empty(element) => check_element(&element)?,
            Event::End(_) => open_elements = open_elements.saturating_sub(1),
            Event::DocType(_) => return Err("must not have a DOCTYPE (entities)".to_owned()),
            Event::PI(_) => return Err("must not have processing instructions (style sheets)".to_owned()),
            Event::Eof if open_elements > 0 => {
                return Err("is not well-formed XML (an element is not closed)".to_owned());
            }
            Event::Eof => return Ok(()),
            Event::Text(_) | Event::CData(_) | Event::Comment(_) | Event::Decl(_) => {}
        }
        buf.clear();
    }
}

fn check_element(element: &BytesStart) -> Result<(), String> {
    let name = String::from_utf8_lossy(element.local_name().as_ref()).into_owned();
    if !ELEMENTS.contains(&name.as_str()) {
        return Err(format!("must not have <{name}> elements"));
    }
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|err| format!("has a malformed attribute ({err})"))?;
        let key = String::from_utf8_lossy(attribute.key.local_name().as_ref()).to_ascii_lowercase();
        // Decoded as a browser would: character references and the predefined
        // entities; any other entity is an error (there is no DTD to define it).
        let value =
            attribute.unescape_value().map_err(|err| format!("has an attribute that does not decode ({err})"))?;
        if key.starts_with("on") {
            return Err(format!("must not have event handlers ({key})"));
        }
        let squeezed: String =
            value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect::<String>().to_ascii_lowercase();
        if key == "href" && !squeezed.starts_with('#') {
            return Err("may link only inside itself (href=\"#...\")".to_owned());
        }
        if squeezed.contains("javascript:") || squeezed.contains("@import") || squeezed.contains("expression(") {
            return Err(format!("must not have script or imports in attributes ({key})"));
        }
        if squeezed
            .match_indices("url(")
            .any(|(at, _)| !squeezed[at + 4..].trim_start_matches(['\'', '"']).starts_with('#'))
        {
            return Err(format!("may refer only inside itself in url() ({key})"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    const PLAIN: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#1a73e8"/></linearGradient></defs>
  <title>Logo</title><rect width="10" height="10" fill="url(#g)" style="stroke: #fff"/>
  <use xlink:href="#g"/><text x="1" y="8">A &amp; B</text>
</svg>"##;

    /// Hostile logos seen in the wild and in the probe: each must be refused.
    const HOSTILE: &[&str] = &[
        r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><rect ONCLICK="alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(document.domain)"><rect/></a></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="&#106;avascript:alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><use href="&#x6A;avascript:alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><use href="java&#x09;script:alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><use href=" jav&#x61;script:alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><a><animate attributeName="href" to="jav&#x61;script:alert(1)"/></a></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><set attributeName="onmouseover" to="alert(1)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/track.png"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><use href="https://evil.example/sprite.svg#a"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(https://evil.example/x.css);</style></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><rect style="background:url(https://evil.example/x)"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><rect style="@import 'https://evil.example/x.css'"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url( 'https://evil.example/p.svg#x' )"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><iframe src="javascript:alert(1)"/></foreignObject></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script></svg>"#,
        r#"<?xml-stylesheet href="https://evil.example/x.css"?><svg xmlns="http://www.w3.org/2000/svg"/>"#,
        r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&lol2;</text></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text><use href="&xxe;"/></svg>"#,
        r#"<svg xmlns="http://www.w3.org/2000/svg"><rect/>"#,
    ];

    #[test]
    fn a_plain_picture_passes() {
        assert_eq!(check(PLAIN.as_bytes()), Ok(()));
    }

    #[test]
    fn every_hostile_logo_is_refused() {
        for (index, svg) in HOSTILE.iter().enumerate() {
            assert!(check(svg.as_bytes()).is_err(), "vector {index} passed: {svg}");
        }
    }
}
