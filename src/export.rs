//! Figure and table export: a view's SVG as a standalone file (its CSS
//! resolved into each element's style, so it looks the same in a slide),
//! the same as PNG at slide size, a canvas as PNG, and text files (CSV,
//! the mails' table). With `light`, the figure is drawn in the page's
//! light colours whatever the page's dark mode.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Width of an exported PNG (a 16:9 slide at 1920 × 1080 px).
pub const SLIDE_W: f64 = 1920.0;

/// CSS properties that decide how SVG content looks.
const SVG_PROPS: [&str; 16] = [
    "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "stroke-opacity", "opacity", "font-family", "font-size",
    "font-weight", "text-anchor", "dominant-baseline", "display", "visibility", "paint-order", "stroke-linecap",
];

/// Runs `f` with the page's light colours forced (the `export-light`
/// class on the root element overrides the dark theme's variables).
pub fn with_theme<R>(light: bool, f: impl FnOnce() -> R) -> R {
    let root = document().document_element();
    let add = light && root.as_ref().is_some_and(|r| !r.class_list().contains("export-light"));
    if add {
        if let Some(r) = &root {
            let _ = r.class_list().add_1("export-light");
        }
    }
    let out = f();
    if add {
        if let Some(r) = &root {
            let _ = r.class_list().remove_1("export-light");
        }
    }
    out
}

/// The SVG `svg` as a standalone document: a deep copy whose elements
/// carry their computed style, on the panel's background colour.
pub fn standalone_svg(svg: &web_sys::Element, light: bool) -> Option<String> {
    with_theme(light, || {
        let w = web_sys::window()?;
        let copy: web_sys::Element = svg.clone_node_with_deep(true).ok()?.dyn_into().ok()?;
        let src = svg.query_selector_all("*").ok()?;
        let dst = copy.query_selector_all("*").ok()?;
        for i in 0..src.length().min(dst.length()) {
            let (Some(a), Some(b)) = (src.item(i), dst.item(i)) else { continue };
            let (Ok(a), Ok(b)) = (a.dyn_into::<web_sys::Element>(), b.dyn_into::<web_sys::Element>()) else { continue };
            let Ok(Some(cs)) = w.get_computed_style(&a) else { continue };
            let style: String = SVG_PROPS
                .iter()
                .filter_map(|p| cs.get_property_value(p).ok().filter(|v| !v.is_empty()).map(|v| format!("{p}:{v};")))
                .collect();
            let _ = b.set_attribute("style", &style);
            let _ = b.remove_attribute("class");
        }
        let bg = panel_colour();
        let _ = copy.set_attribute("xmlns", "http://www.w3.org/2000/svg");
        let _ = copy.set_attribute("style", &format!("background:{bg}"));
        // A background rectangle, for viewers that ignore CSS backgrounds.
        let rect = document().create_element_ns(Some("http://www.w3.org/2000/svg"), "rect").ok()?;
        for (k, v) in [("x", "-10000"), ("y", "-10000"), ("width", "20000"), ("height", "20000"), ("fill", bg.as_str())] {
            let _ = rect.set_attribute(k, v);
        }
        let _ = copy.insert_before(&rect, copy.first_child().as_ref());
        Some(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}", copy.outer_html()))
    })
}

/// The panels' background colour in the theme in force (`--panel`).
fn panel_colour() -> String {
    web_sys::window()
        .zip(document().document_element())
        .and_then(|(w, root)| w.get_computed_style(&root).ok().flatten())
        .and_then(|s| s.get_property_value("--panel").ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "#ffffff".into())
}

/// A canvas's picture on the panels' background, as a PNG data URL (the
/// canvas itself is transparent where nothing is drawn, which on a slide
/// of another colour would lose its text).
fn canvas_png(canvas: &web_sys::HtmlCanvasElement) -> Option<String> {
    let out: web_sys::HtmlCanvasElement = document().create_element("canvas").ok()?.dyn_into().ok()?;
    out.set_width(canvas.width());
    out.set_height(canvas.height());
    let g: web_sys::CanvasRenderingContext2d = out.get_context("2d").ok()??.dyn_into().ok()?;
    g.set_fill_style_str(&panel_colour());
    g.fill_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    g.draw_image_with_html_canvas_element(canvas, 0.0, 0.0).ok()?;
    out.to_data_url_with_type("image/png").ok()
}

/// Offers `bytes` as a file download named `name`.
pub fn download_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let arr = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(|_| "the browser refused to make the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "the browser refused to make the file")?;
    download_url(name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Offers text as a file download.
pub fn download_text(name: &str, mime: &str, text: &str) -> Result<(), String> {
    record_export(name, text);
    download_bytes(name, mime, text.as_bytes())
}

fn download_url(name: &str, url: &str) {
    let Ok(a) = document().create_element("a") else { return };
    let _ = a.set_attribute("href", url);
    let _ = a.set_attribute("download", name);
    if let Some(a) = a.dyn_ref::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// Records each export in `window.__schedlabExports` (file name → its
/// text, or a PNG's data URL) when a test (or a curious user) created that
/// object; otherwise costs one property lookup.
fn record_export(name: &str, data: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(obj) = js_sys::Reflect::get(&w, &JsValue::from_str("__schedlabExports")) else { return };
    if obj.is_object() {
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(name), &JsValue::from_str(data));
    }
}

/// Saves an SVG view: as `.svg`, or rendered to a slide-wide `.png`.
/// Returns an error in words.
pub fn save_svg(svg: &web_sys::Element, base: &str, light: bool, png: bool) -> Result<(), String> {
    let text = standalone_svg(svg, light).ok_or("the figure could not be read")?;
    if !png {
        return download_text(&format!("{base}.svg"), "image/svg+xml", &text);
    }
    let (w, h) = svg_size(svg);
    let scale = SLIDE_W / w.max(1.0);
    let (pw, ph) = ((w * scale).round() as u32, (h * scale).round() as u32);
    let name = format!("{base}.png");
    let img = web_sys::HtmlImageElement::new().map_err(|_| "no image element")?;
    let url = format!("data:image/svg+xml;charset=utf-8,{}", js_sys::encode_uri_component(&text));
    let img2 = img.clone();
    let onload = Closure::once_into_js(move || {
        let canvas: Option<web_sys::HtmlCanvasElement> = document().create_element("canvas").ok().and_then(|c| c.dyn_into().ok());
        let Some(canvas) = canvas else { return };
        canvas.set_width(pw);
        canvas.set_height(ph);
        let g: Option<web_sys::CanvasRenderingContext2d> = canvas.get_context("2d").ok().flatten().and_then(|g| g.dyn_into().ok());
        if let Some(g) = g {
            let _ = g.draw_image_with_html_image_element_and_dw_and_dh(&img2, 0.0, 0.0, pw as f64, ph as f64);
        }
        if let Ok(data) = canvas.to_data_url_with_type("image/png") {
            record_export(&name, &data);
            download_url(&name, &data);
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&url);
    Ok(())
}

/// The drawn size of an SVG (its viewBox, else its box).
fn svg_size(svg: &web_sys::Element) -> (f64, f64) {
    let vb = svg.get_attribute("viewBox").unwrap_or_default();
    let v: Vec<f64> = vb.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    if v.len() == 4 {
        return (v[2], v[3]);
    }
    let r = svg.get_bounding_client_rect();
    (r.width(), r.height())
}

/// Saves a canvas as `.png`, or as `.svg` holding that picture, on the
/// panels' background of the theme in force (the caller draws the canvas
/// in the theme of the file first: see [`with_theme`]).
pub fn save_canvas(canvas: &web_sys::HtmlCanvasElement, base: &str, png: bool) -> Result<(), String> {
    let data = canvas_png(canvas).ok_or("the canvas could not be read")?;
    if png {
        record_export(&format!("{base}.png"), &data);
        download_url(&format!("{base}.png"), &data);
        return Ok(());
    }
    let (w, h) = (canvas.width(), canvas.height());
    let svg = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\"><image width=\"{w}\" height=\"{h}\" href=\"{data}\" xlink:href=\"{data}\"/></svg>"
    );
    download_text(&format!("{base}.svg"), "image/svg+xml", &svg)
}

/// The export buttons of a figure: SVG, PNG and the light-theme choice.
/// `target` finds the figure's element when a button is pressed.
#[component]
pub fn ExportButtons(#[prop(into)] name: String, target: Callback<(bool, bool), Result<(), String>>) -> impl IntoView {
    let light = use_context::<ExportLight>().map(|l| l.0).unwrap_or_else(|| RwSignal::new(true));
    let error = RwSignal::new(None::<String>);
    let run = move |png: bool| error.set(target.run((light.get_untracked(), png)).err());
    view! {
        <span class="export" data-testid=format!("export-{name}")>
            <button class="small" data-testid="export-svg" title="save this figure as SVG" on:click=move |_| run(false)>"SVG"</button>
            <button class="small" data-testid="export-png" title="save this figure as a slide-wide PNG" on:click=move |_| run(true)>"PNG"</button>
            {move || error.get().map(|e| view! { <span class="warn-text">{e}</span> })}
        </span>
    }
}

/// What a figure's file name starts with: `schedlab` on the lecture page,
/// `schedlab-base` / `schedlab-patch` in the comparison's panes (each pane
/// provides its own), so that the two panes' files of one figure differ.
#[derive(Clone, Copy)]
pub struct FigurePrefix(pub &'static str);

/// The prefix of the figures made here (read when the view is created).
pub fn figure_prefix() -> &'static str {
    use_context::<FigurePrefix>().map_or("schedlab", |p| p.0)
}

/// Export figures in the light theme (the app's choice, shared by every
/// figure's buttons).
#[derive(Clone, Copy)]
pub struct ExportLight(pub RwSignal<bool>);
