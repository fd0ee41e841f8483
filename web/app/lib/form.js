// A form over values the server holds: when the server's values change (another save answered,
// settings read again), the fields the user has not touched take the new values and the ones
// they changed keep what they typed.

/** The form after the stored values went from `before` to `after` (all three flat objects). */
export function rebaseForm(form, before, after) {
  const out = { ...form };
  for (const [name, value] of Object.entries(after)) {
    if (!(name in form) || form[name] === before[name]) out[name] = value;
  }
  return out;
}
