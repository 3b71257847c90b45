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

#: every link in a styled table (Styler ids start with T_claims-) to a why section, and
#: the text of the article (where an escaped tag would show as text)
_WHY_LINKS_JS = """() => ({
  links: [...document.querySelectorAll('table[id^="T_claims-"] td a')]
           .filter(a => a.getAttribute('href').endsWith('#ANCHOR'))
           .map(a => a.getAttribute('href')),
  text: (document.querySelector('article') || document.body).innerText,
})""".replace("ANCHOR", WHY_ANCHOR)

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
    context, url = book_browser
    page = context.new_page()
    log = PageLog(allowed=(*LOCAL_SCHEMES, url + "/")).attach(page)
    try:
        page.goto(f"{url}/{name}", wait_until="load")
        log.settle(page)
        seen = page.evaluate(_WHY_LINKS_JS)
        assert "<a href" not in seen["text"], f"{name}: a link's tag shows as text"
        assert seen["links"], f"{name}: no why in its tables links to a #{WHY_ANCHOR} section"
        here = Path(name).parent
        missing = sorted({href for href in seen["links"]
                          if f'id="{WHY_ANCHOR}"' not in
                          (site / here / href.split("#")[0]).read_text()})
        assert not missing, f"{name}: why links to pages without the section: {missing}"
        target = seen["links"][0]
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
