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

test("an entry's refs become links to their slices, its words stay", () => {
  const text = "## Past\n\n- Ran the Bristol Half — refs: [2025/09/07/1342], [2025-10-18-1005, odd]\n- Plain entry\n";
  assert.equal(
    cardBody(text),
    "## Past\n\n- Ran the Bristol Half — [2025/09/07](#/slice/2025-09-07-1342), [2025/10/18](#/slice/2025-10-18-1005), odd\n- Plain entry\n",
  );
  assert.equal(cardBody("- Moved — refs: 2025/02/08/1617\n"), "- Moved — [2025/02/08](#/slice/2025-02-08-1617)\n");
});
