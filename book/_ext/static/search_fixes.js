/* Two fixes to Sphinx's search page (issue 41), loaded on search.html only:
   - a query that is a number ("10000") is searched for: Sphinx's searchtools.js drops
     every all-digit term, though its index holds the numbers of the text;
   - an excerpt is drawn from the chapter's text, not from the theme's header
     ("Repository", "Open issue", the download menu), its page contents, its print-only
     title and contents, or its footer; and it starts where the word is, as typed
     ("rotary"), where Sphinx looked for the stem ("rotari") and fell back to the top. */
(() => {
  if (typeof Search === "undefined") return;
  let typed = new Set();
  const parseQuery = Search._parseQuery;
  Search._parseQuery = (query) => {
    const parsed = parseQuery(query);
    const [, searchTerms, , highlightTerms] = parsed;
    typed = highlightTerms;
    for (const term of splitQuery(query.trim())) {
      if (/^\d+$/.test(term)) {
        searchTerms.add(term);
        highlightTerms.add(term);
      }
    }
    return parsed;
  };
  const NOT_TEXT = [
    ".bd-header-article", ".header-article-main", ".bd-sidebar-secondary",
    ".prev-next-area", ".bd-footer-article", ".bd-footer-content", "footer",
    "#jb-print-docs-body",
  ].join(", ");
  const htmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(NOT_TEXT).forEach((element) => element.remove());
    return htmlToText(page.documentElement.outerHTML, anchor);
  };
  const makeSearchSummary = Search.makeSearchSummary;
  Search.makeSearchSummary = (htmlText, keywords, anchor) =>
    makeSearchSummary(htmlText, new Set([...keywords, ...typed]), anchor);
})();
