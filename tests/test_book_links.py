"""The why links of the built book (marker ``browser``): on the summary page and each
paper's headline page, every why is a link (never its tag shown as text) to the section of
a page that measures it (``WHY_ANCHOR``), and a reader who clicks one lands there."""

from __future__ import annotations

from pathlib import Path

import pytest
from _browser import LOCAL_SCHEMES, PageLog, PlaywrightError

from lorasched.figures.base import WHY_ANCHOR

#: the pages whose tables show each row's why linked to its page (summary.linked)
WHY_PAGES = ["notebooks/summary.html", "notebooks/headline_pdftsp.html",
             "notebooks/headline_titan.html", "notebooks/headline_allpass.html"]

#: the why cells of the page's styled tables (Styler ids start with T_claims-): each
#: one's text and the targets of its links; and the text of the article (where an escaped
#: tag would show as text)
_WHY_CELLS_JS = """() => {
  const cells = [];
  for (const table of document.querySelectorAll('table[id^="T_claims-"]')) {
    for (const th of table.querySelectorAll('th.col_heading')) {
      if (th.textContent.trim() !== 'why') continue;
      const col = [...th.classList].find(c => /^col[0-9]+$/.test(c));
      for (const td of table.querySelectorAll(`td.data.${col}`))
        cells.push({text: td.textContent.trim(),
                    links: [...td.querySelectorAll('a')].map(a => a.getAttribute('href'))});
    }
  }
  return {cells: cells,
          text: (document.querySelector('article') || document.body).innerText};
}"""


#: where the section ``id`` is: its top in the window, the window's height, and whether
#: that is in view (in the window's upper half, as the browser scrolls to a link's section);
#: null where the page has none
_LANDED_JS = """id => {
  const el = document.getElementById(id);
  if (!el) return null;
  const top = el.getBoundingClientRect().top;
  return {top: top, height: window.innerHeight,
          inView: top >= 0 && top < window.innerHeight / 2};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("name", WHY_PAGES)
def test_a_why_link_leads_to_the_section_that_measures_it(book_browser, built_book, name):
    """Every why link of the page's tables leads to a page of the site that has the
    section; no tag shows as text; clicking the first lands on its page, that section in
    view (scrolled to it, in the upper half of the window)."""
    site = built_book
    assert (site / name).is_file(), f"the built book has no page {name}"
    context, url = book_browser
    page = context.new_page()
    log = PageLog(allowed=(*LOCAL_SCHEMES, url + "/")).attach(page)
    try:
        page.goto(f"{url}/{name}", wait_until="load")
        log.settle(page)
        seen = page.evaluate(_WHY_CELLS_JS)
        assert "<a href" not in seen["text"], f"{name}: a link's tag shows as text"
        whys = [c for c in seen["cells"] if c["text"]]
        if not whys:
            pytest.skip(f"{name}: no row of its tables has a why")
        unlinked = [c["text"] for c in whys
                    if not any(h.endswith(f"#{WHY_ANCHOR}") for h in c["links"])]
        assert not unlinked, (f"{name}: {len(unlinked)} of {len(whys)} whys link to no "
                              f"#{WHY_ANCHOR} section, as {unlinked[0]!r}")
        here = Path(name).parent
        links = [h for c in whys for h in c["links"] if h.endswith(f"#{WHY_ANCHOR}")]
        missing = sorted({h for h in links
                          if not (site / here / h.split("#")[0]).is_file()
                          or f'id="{WHY_ANCHOR}"' not in
                          (site / here / h.split("#")[0]).read_text()})
        assert not missing, f"{name}: why links to pages without the section: {missing}"
        target = links[0]
        page.locator(f'table[id^="T_claims-"] td a[href="{target}"]').first.click()
        page.wait_for_url(f"{url}/{(here / target).as_posix()}")
        try:
            page.wait_for_function(f"id => ({_LANDED_JS})(id)?.inView", arg=WHY_ANCHOR,
                                   timeout=10_000)
        except PlaywrightError:  # reported below
            pass
        landed = page.evaluate(_LANDED_JS, WHY_ANCHOR)
        assert landed and landed["inView"], (
            f"{name}: clicked {target}, and its section is not in view: {landed}")
        assert not log.problems, log.problems
    finally:
        page.close()
