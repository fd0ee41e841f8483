"""Pictures in the input bar (UI.md): attach, see, send; the model receives them and the slice view shows
them, byte for byte with what the model got; a non-image and an oversized file are refused with a reason."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Server, eventually, wait_for_replies
from tests.fakes.fake_model_server import FakeModelServer
from tests.fakes.images import jpeg_with_location, png

pytestmark = pytest.mark.browser
# The page's own messages: another test may have left the conversation open, and its earlier
# exchanges are then shown above (`data-earlier`).
DONE = "[data-testid=msg-assistant][data-status=done]:not([data-earlier])"
SENT_IMAGE = "[data-testid=msg-user]:not([data-earlier]) [data-testid=msg-image] img"


def _images_sent(fake: FakeModelServer, since: int = 0) -> list[bytes]:
    """The pictures on the newest user message that carried any (OpenAI or Anthropic wire), in
    the requests from number `since` on."""
    for request in reversed(fake.requests[since:]):
        for message in reversed(request.body.get("messages") or []):
            parts = message.get("content") if message.get("role") == "user" else None
            found = []
            for p in parts if isinstance(parts, list) else []:
                if p.get("type") == "image_url":
                    found.append(p["image_url"]["url"].split(",", 1)[1])
                elif p.get("type") == "image":
                    found.append(p["source"]["data"])
            if found:
                return [base64.b64decode(d) for d in found]
    return []


def _attach(page: Page, name: str, data: bytes, mime: str) -> None:
    page.get_by_test_id("attach-input").set_input_files({"name": name, "mimeType": mime, "buffer": data})


def _wait_loaded(page: Page, image: Locator, width: int) -> None:
    """Wait until the picture has loaded (being in the page is not enough) and has `width`."""
    page.wait_for_function(
        "([img, width]) => img.complete && img.naturalWidth === width", arg=[image.element_handle(), width]
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_an_image_is_attached_sent_and_shown_in_the_slice(
    make_app, own_server: Server, fake_model: FakeModelServer, size: str
) -> None:
    app = make_app(own_server, size=size, now=None)
    page = app.open()
    _attach(page, "notes.txt", b"just words", "text/plain")
    expect(page.get_by_test_id("attach-error")).to_contain_text("notes.txt is not a PNG, JPEG, WebP or GIF")
    _attach(page, "huge.png", b"\x89PNG" + b"\0" * 3_100_000, "image/png")
    expect(page.get_by_test_id("attach-error")).to_contain_text("larger than 3 MB")
    _attach(page, "red.jpg", jpeg_with_location(), "image/jpeg")
    page.wait_for_selector("[data-testid=chat-input] [data-testid=attached-image] img")
    expect(page.get_by_test_id("attached-image")).to_have_count(1)
    remove = page.get_by_test_id("attached-image").get_by_role("button").bounding_box()
    assert remove and remove["width"] >= 24 and remove["height"] >= 24, remove  # D30: a target, not a speck
    page.locator("#message-box").fill("What colour is this?")
    page.locator("#message-box").press("Enter")
    wait_for_replies(page, 1)
    expect(page.get_by_test_id("attached-image")).to_have_count(0)
    expect(page.locator(SENT_IMAGE)).to_have_count(1)
    [sent] = _images_sent(fake_model)
    assert b"Mara Quinn" not in sent, "the location and author are gone before the model sees it"
    slice_id = own_server.get("/api/state")["active"]["slice_id"]
    page.goto(f"{own_server.url}/#/slice/{slice_id}")
    image = page.locator("[data-testid=turn-image] img").last
    image.wait_for()
    # The thumbnail stands for the picture's link: the bubble shows the words only (D5).
    bubble = page.locator("[data-testid=turn] .bubble").last
    expect(bubble).to_have_text("What colour is this?")
    served = page.request.get(own_server.url + str(image.get_attribute("src")))
    assert served.ok and served.body() == sent, "the slice folder holds exactly what the model received"
    _wait_loaded(page, image, 64)
    # Forgetting the exchange (or the slice) says its picture goes too, as the server's preview does.
    page.get_by_test_id("forget-turn").last.click()
    expect(page.get_by_test_id("forget-turn-dialog").get_by_test_id("forget-pictures")).to_have_text(
        "Its picture goes with it."
    )


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_picture_is_sent_on_its_own(
    make_app, own_server: Server, fake_model: FakeModelServer, size: str
) -> None:
    app = make_app(own_server, size=size, now=None)
    page = app.open()
    send = page.get_by_test_id("send")
    expect(send).to_be_disabled()
    _attach(page, "sea.png", png(), "image/png")
    page.wait_for_selector("[data-testid=chat-input] [data-testid=attached-image] img")
    expect(send).to_be_enabled()
    send.click()
    wait_for_replies(page, 1)
    expect(page.locator(SENT_IMAGE)).to_have_count(1)
    [sent] = _images_sent(fake_model)
    assert sent.startswith(b"\x89PNG")
    expect(send).to_be_disabled()


def test_answer_again_sends_the_same_picture(
    make_app, own_server: Server, fake_model: FakeModelServer
) -> None:
    app = make_app(own_server, size="desktop", now=None)
    page = app.open()
    _attach(page, "red.jpg", jpeg_with_location(), "image/jpeg")
    page.wait_for_selector("[data-testid=chat-input] [data-testid=attached-image] img")
    page.locator("#message-box").fill("What colour is this?")
    page.locator("#message-box").press("Enter")
    wait_for_replies(page, 1)
    [first] = _images_sent(fake_model)
    asked = len(fake_model.requests)
    old = page.locator(DONE).element_handle()
    with page.expect_response(lambda r: r.url.endswith("/retract")) as taken:
        page.get_by_test_id("regenerate").click()
    assert taken.value.status == 200
    # The old exchange (already done) leaves the view before the new answer arrives.
    old.wait_for_element_state("hidden")
    wait_for_replies(page, 1)
    eventually(page, lambda: _images_sent(fake_model, since=asked), "the new request reached the model")
    assert _images_sent(fake_model, since=asked) == [first], "the model sees the same picture again"
    image = page.locator(SENT_IMAGE)
    image.wait_for()
    _wait_loaded(page, image, 64)


# Two picks in one task: the second starts while the first picture is still being read.
TWO_PICKS = """([first, second]) => {
  const input = document.querySelector('[data-testid=attach-input]');
  for (const [name, b64] of [first, second]) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const list = new DataTransfer();
    list.items.add(new File([bytes], name, { type: name.endsWith('.png') ? 'image/png' : 'image/jpeg' }));
    input.files = list.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }
}"""


def test_two_pictures_picked_close_together_both_stay_attached(make_app, own_server: Server) -> None:
    app = make_app(own_server, size="desktop", now=None)
    page = app.open()
    pictures = [["red.jpg", jpeg_with_location()], ["blue.png", png()]]
    page.evaluate(TWO_PICKS, [[name, base64.b64encode(data).decode()] for name, data in pictures])
    thumbs = page.locator("[data-testid=chat-input] [data-testid=attached-image] img")
    expect(thumbs).to_have_count(2)
    assert thumbs.evaluate_all("els => els.map(e => e.alt)") == ["red.jpg", "blue.png"]
    expect(page.get_by_test_id("attach-error")).to_have_count(0)


PICK_THEN_REMOVE = """([name, b64]) => {
  const input = document.querySelector('[data-testid=attach-input]');
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const list = new DataTransfer();
  list.items.add(new File([bytes], name, { type: 'image/png' }));
  input.files = list.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  // While that picture is still being read, remove the one already attached.
  document.querySelector('[data-testid=chat-input] .attach-remove').click();
}"""


def test_a_picture_removed_while_another_is_read_stays_removed(make_app, own_server: Server) -> None:
    app = make_app(own_server, size="desktop", now=None)
    page = app.open()
    _attach(page, "red.jpg", jpeg_with_location(), "image/jpeg")
    thumbs = page.locator("[data-testid=chat-input] [data-testid=attached-image] img")
    expect(thumbs).to_have_count(1)
    page.evaluate(PICK_THEN_REMOVE, ["blue.png", base64.b64encode(png()).decode()])
    expect(thumbs).to_have_count(1)
    expect(thumbs).to_have_attribute("alt", "blue.png")


def test_attach_says_why_a_model_that_cannot_see_images_takes_none(make_app, own_server: Server) -> None:
    app = make_app(own_server, size="phone", service_workers="block")  # page.route sees every fetch

    def blind(route) -> None:  # the same models, each marked as unable to see images
        res = route.fetch()
        body = res.json()
        assert body["models"], "the fake provider lists models"
        for m in body["models"]:
            m["supports_vision"], m["curated"] = False, True
        route.fulfill(response=res, json=body)

    app.page.route("**/api/models", blind)
    page = app.open()
    attach = page.get_by_test_id("attach")
    expect(attach).to_have_attribute("aria-disabled", "true")
    attach.click(force=True)  # aria-disabled: it still answers a tap, with the reason
    expect(page.get_by_test_id("attach-error")).to_contain_text("cannot see images")
    _attach(page, "red.png", png((8, 8)), "image/png")  # a paste or drop is refused the same way
    expect(page.get_by_test_id("attach-error")).to_contain_text("Pick a model that can")
    expect(page.get_by_test_id("attached-image")).to_have_count(0)
