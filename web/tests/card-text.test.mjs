// The card as shown: title and bookkeeping stamp left out, every other line kept.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cardBody } from "../app/lib/card-text.js";

const CARD = "# Previously On\n\n_Active slice: 2026-11-21-1040 | Format: user card v2 | Updated: 2026-11-26T20:10:49.344Z_\n\n## Identity\n\n- Name: Nell\n";

test("the title and the stamp go, the sections stay exactly", () => {
  assert.equal(cardBody(CARD), "## Identity\n\n- Name: Nell\n");
});

test("a card without them is unchanged, and a stamp-like line later on stays", () => {
  const text = "## Now\n\n- _Active slice: x | Updated: y_\n";
  assert.equal(cardBody(text), text);
  assert.equal(cardBody(""), "");
  assert.equal(cardBody(null), "");
});
