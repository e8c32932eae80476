"""Sphinx extension for the sinpe book: lighter pages (tests/test_page_weight.py).

Icons. pydata-sphinx-theme puts ``_static/scripts/fontawesome.js`` in the head of every
page: 1.49 MB, every icon of Font Awesome Free and the code that swaps each
``<i class="fa-solid fa-sun"></i>`` for an inline SVG, for the dozen icons the book
shows. This extension does that swap once, when the book is built:

* ``templates/static/webpack-macros.html`` wraps the theme's macros of the same name and
  drops the script from the page head (the filter ``without_fontawesome``);
* at the end of every HTML build each icon element of each page (the theme's buttons)
  becomes the ``<svg>`` the script would have made (Matplotlib's animation controls
  come drawn already: ``sinpe.plotting.animation_html``),
  its shape read from the theme's own copy of ``fontawesome.js``, so the theme's
  stylesheets (which style those SVGs) apply as before; ``_static/icons.css`` holds the
  stylesheet the script would have added to the page, taken from the same file.

The theme's stylesheets also draw a few icons from Font Awesome's fonts, in CSS (the
icon of an admonition's title, of a download link ...): ``icons.css`` points those
fonts at subsets of them, written to ``_static/icons/``, with just the glyphs that the
theme's stylesheets name (a few kB instead of 156 kB for the solid style alone).
An icon that Font Awesome Free lacks fails the build.

Pages. Besides: a page other than search.html does not load Sphinx's search index
(125 kB) and tools, which only search.html uses (``templates/layout.html``); a page
without sphinx-design's components does not load its stylesheet and script; and the
theme's stylesheet loses its 1,900 rules that put Font Awesome's glyphs in ``.fa-*``
elements (86 kB), since the icons are SVG.

Figures. The images of a page's body load as the reader scrolls to them
(``loading="lazy"``): opening a chapter fetches the figures of its first screens, not
all of them. (MathJax's lighter loader is set in _config.yml.)
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sphinx.errors import ExtensionError

TEMPLATES = Path(__file__).resolve().parent / "templates"
STYLESHEET = "icons.css"
THEME_SCRIPT = "_static/scripts/fontawesome.js"

#: Font Awesome's style classes, by the pack of icons they draw from.
STYLES = {
    "fa": "fas",
    "fas": "fas",
    "fa-solid": "fas",
    "far": "far",
    "fa-regular": "far",
    "fab": "fab",
    "fa-brands": "fab",
}

# In fontawesome.js each pack is an object literal, `var p={name:[width,height,
# [aliases],"unicode","svg path"],...}`, handed to `d("fas",p)`; the stylesheet that
# the script adds to a page is a string that starts with `:host,:root{--fa-font-solid`.
_PACK = re.compile(r'var p=\{(.*?)\};.*?d\("(fa[srb])",p\)', re.S)
_ICON = re.compile(
    r'(?:"([a-z0-9-]+)"|([a-z0-9]+)):\[(\d+),(\d+),\[([^\]]*)\],"[0-9a-f]*","([^"]+)"\]'
)
_CSS = re.compile(r"'(:host,:root\{--fa-font-solid[^']*)'")
#: An empty <i> or <span> with classes: the markup of an icon.
_ELEMENT = re.compile(r'<(i|span)\s+class="([^"]*)"([^>]*)>\s*</\1>')
_ATTRIBUTE = re.compile(r'\s*([\w:-]+)\s*=\s*"([^"]*)"')

Icons = dict[str, dict[str, tuple[int, int, str]]]


def read_icons(script: str) -> Icons:
    """Every icon of fontawesome.js: ``{"fas": {name or alias: (width, height, path)}}``."""
    packs: Icons = {}
    for body, prefix in _PACK.findall(script):
        icons = packs.setdefault(prefix, {})
        for quoted, bare, width, height, aliases, path in _ICON.findall(body):
            shape = (int(width), int(height), path)
            icons[quoted or bare] = shape
            for alias in re.findall(r'"([a-z0-9-]+)"', aliases):
                icons.setdefault(alias, shape)
    if set(packs) != set(STYLES.values()) or not all(packs.values()):
        raise ExtensionError(f"no icon packs found in {THEME_SCRIPT}: {sorted(packs)}")
    return packs


def read_stylesheet(script: str) -> str:
    """The stylesheet fontawesome.js adds to a page (sizes of ``svg.svg-inline--fa``)."""
    found = _CSS.search(script)
    if found is None:
        raise ExtensionError(f"no stylesheet found in {THEME_SCRIPT}")
    return found.group(1)


def _without_font_variables(css: str) -> str:
    """FA's stylesheet without its first rule, which names the fonts after FA Pro's
    families ("Font Awesome 6 Solid"): the theme's, loaded first, name the free ones."""
    return re.sub(r"^:host,:root\{[^}]*\}", "", css)


#: The theme's fonts of icons that its stylesheets use: (file, CSS family, weight).
FONTS = (
    ("fa-solid-900", "Font Awesome 6 Free", 900),
    ("fa-regular-400", "Font Awesome 6 Free", 400),
    ("fa-brands-400", "Font Awesome 6 Brands", 400),
)
_RULE = re.compile(r"([^{}]*)\{([^{}]*)\}")
_ESCAPE = re.compile(r"\\(f[0-9a-f]{3})\b")


def css_glyphs(css: str) -> set[int]:
    """The icon characters a stylesheet draws in CSS (``content``, ``--pst-icon-*``),
    not those of the ``.fa-name::before`` classes, which are drawn as SVG instead."""
    glyphs = set()
    for selectors, body in _RULE.findall(css):
        if all(s.strip().startswith(".fa-") for s in selectors.split(",")):
            continue
        glyphs |= {int(code, 16) for code in _ESCAPE.findall(body)}
        glyphs |= {ord(c) for c in body if 0xE000 <= ord(c) <= 0xF8FF}
    return glyphs


def subset_fonts(webfonts: Path, glyphs: set[int], target: Path) -> str:
    """WOFF subsets of the theme's icon fonts with ``glyphs``; their ``@font-face`` rules,
    which come after the theme's and so take their place."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    target.mkdir(parents=True, exist_ok=True)
    faces = []
    for name, family, weight in FONTS:
        font = TTFont(webfonts / f"{name}.ttf")
        present = glyphs & set(font.getBestCmap())
        if not present:
            continue
        options = subset.Options()
        options.flavor = "woff"  # zlib: WOFF2 would need brotli, which the venv lacks
        options.layout_features = []
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(present))
        subsetter.subset(font)
        font.flavor = "woff"
        font.save(target / f"{name}.woff")
        faces.append(
            f'@font-face{{font-display:block;font-family:"{family}";font-style:normal;'
            f'font-weight:{weight};src:url({target.name}/{name}.woff) format("woff")}}'
        )
    return "\n".join(faces)


def _svg(prefix: str, name: str, shape: tuple[int, int, str], classes, attributes) -> str:
    """The element fontawesome.js makes of an icon: the same classes and attributes."""
    width, height, path = shape
    title = attributes.pop("title", None)
    extra = "".join(f' {key}="{html.escape(value)}"' for key, value in attributes.items())
    inner = f"<title>{html.escape(title)}</title>" if title else ""
    return (
        f'<svg class="{" ".join(["svg-inline--fa", *classes])}" aria-hidden="true" '
        f'focusable="false" data-prefix="{prefix}" data-icon="{name}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"{extra}>'
        f'{inner}<path fill="currentColor" d="{path}"></path></svg>'
    )


def inline_icons(page: str, packs: Icons) -> tuple[str, list[str]]:
    """``page`` with every icon element drawn as an inline SVG; and the icons not found."""
    missing = []

    def replace(match: re.Match) -> str:
        classes = match[2].split()
        styles = [name for name in classes if name in STYLES]
        if not styles:
            return match[0]
        prefix = STYLES[styles[0]]
        names = [name[3:] for name in classes if name.startswith("fa-") and name not in STYLES]
        icons = [name for name in names if name in packs[prefix]]
        if len(icons) != 1:
            missing.append(match[2])
            return match[0]
        attributes = dict(_ATTRIBUTE.findall(match[3]))
        kept = [name for name in classes if name not in styles]
        return _svg(prefix, icons[0], packs[prefix][icons[0]], kept, attributes)

    return _ELEMENT.sub(replace, page), missing


def add_templates(app, config) -> None:
    config.templates_path.insert(0, str(TEMPLATES))


def without_fontawesome(markup: str) -> str:
    """The theme's head scripts without fontawesome.js."""
    return re.sub(r"\s*<script[^>]*scripts/fontawesome\.js[^>]*></script>", "", str(markup))


_SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*(?:searchtools\.js|language_data\.js|searchindex\.js)"></script>'
)


def without_search_index(markup: str) -> str:
    """The theme's page head without Sphinx's search scripts."""
    return _SEARCH_SCRIPTS.sub("", str(markup))


def register(app) -> None:
    if app.builder.format != "html":
        return
    filters = app.builder.templates.environment.filters
    filters["without_fontawesome"] = without_fontawesome
    filters["without_search_index"] = without_search_index
    app.add_css_file(STYLESHEET)


#: sphinx-design's assets, and the markup of its components.
DESIGN_ASSETS = ("sphinx-design.min.css", "design-tabs.js")
_DESIGN = re.compile(r'class="(?:[^"]*\s)?sd-')


def only_used_assets(app, pagename, templatename, context, doctree) -> None:
    """A page without sphinx-design's components does not load its assets."""
    if _DESIGN.search(context.get("body", "")):
        return
    for key in ("css_files", "script_files"):
        if key in context:
            context[key] = [
                asset
                for asset in context[key]
                if not str(getattr(asset, "filename", asset)).endswith(DESIGN_ASSETS)
            ]


THEME_STYLESHEET = "_static/styles/pydata-sphinx-theme.css"
_GLYPH_RULE = re.compile(
    r"(?<=[}/])((?:\.fa-[a-z0-9-]+:(?::)?(?:before|after),?)+)\{content:[^{}]*\}"
)


def without_glyph_rules(css: str) -> str:
    """The theme's stylesheet without ``.fa-name:before{content:...}`` rules."""
    return _GLYPH_RULE.sub("", css)


_IMG = re.compile(r"<img(?![^>]*\sloading=)")


def lazy_images(app, pagename, templatename, context, doctree) -> None:
    """Body images load when the reader nears them (the browser test loads them all)."""
    if "body" in context:
        context["body"] = _IMG.sub('<img loading="lazy"', context["body"])


def theme_script() -> Path:
    """The theme's fontawesome.js, as installed (the source of the icons' shapes)."""
    import pydata_sphinx_theme

    path = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    return path / "static" / "scripts" / "fontawesome.js"


def draw_icons(app, exception) -> None:
    """Every page's icons as inline SVG, their stylesheet, and no fontawesome.js."""
    if exception is not None or app.builder.format != "html":
        return
    script = theme_script()
    text = script.read_text(encoding="utf-8")
    packs = read_icons(text)
    outdir = Path(app.outdir)
    missing = {}
    for page in outdir.rglob("*.html"):
        if page.relative_to(outdir).parts[0] == "_static":
            continue  # the theme's template sources, not pages
        before = page.read_text(encoding="utf-8")
        if "fontawesome.js" in before:
            raise ExtensionError(f"{page.relative_to(outdir)} still loads fontawesome.js")
        after, unknown = inline_icons(before, packs)
        if unknown:
            missing[str(page.relative_to(outdir))] = unknown
        if after != before:
            page.write_text(after, encoding="utf-8")
    if missing:
        raise ExtensionError(f"icons that Font Awesome Free does not have: {missing}")
    licence = script.with_name(f"{script.name}.LICENSE.txt")
    notice = licence.read_text(encoding="utf-8").strip() if licence.is_file() else ""
    static = outdir / "_static"
    theme_css = "".join(
        (static / "styles" / name).read_text(encoding="utf-8")
        for name in ("pydata-sphinx-theme.css", "sphinx-book-theme.css")
    )
    fonts = subset_fonts(
        static / "vendor" / "fontawesome" / "webfonts", css_glyphs(theme_css), static / "icons"
    )
    css = "\n".join(
        [
            notice,
            "/* What fontawesome.js adds to a page; here from book/_ext/page_weight.py. */",
            _without_font_variables(read_stylesheet(text)),
            "/* The theme's icon fonts, with the glyphs its stylesheets draw. */",
            fonts,
        ]
    )
    (static / STYLESHEET).write_text(css + "\n", encoding="utf-8")
    theme = outdir / THEME_STYLESHEET
    theme.write_text(without_glyph_rules(theme.read_text(encoding="utf-8")), encoding="utf-8")
    # No page loads the script (3 MB with its source map): not published either.
    for leftover in ("", ".map"):
        (outdir / f"{THEME_SCRIPT}{leftover}").unlink(missing_ok=True)


def setup(app):
    app.connect("config-inited", add_templates)
    app.connect("builder-inited", register)
    app.connect("html-page-context", lazy_images)
    app.connect("html-page-context", only_used_assets)
    app.connect("build-finished", draw_icons)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
