// Pictures attached in the input bar (button, paste or drop): checked here for type and size so
// the user hears at once what cannot be sent; the server checks again and re-encodes each one.
import { html } from "./html.js";
import { Icon } from "./icons.js";

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];
export const MAX_IMAGE_BYTES = 3_000_000; // core/media/images.py MAX_UPLOAD (all pictures of one message)
export const MAX_IMAGES = 4;

function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** Add `files` to `current`: the accepted pictures and, for any refused, the reason to show. */
export async function addImages(current, files, t) {
  const out = [...current];
  let problem = "";
  for (const file of files) {
    const total = out.reduce((n, a) => n + a.size, 0) + file.size;
    if (!IMAGE_TYPES.includes(file.type)) problem = t("attach.notImage", { name: file.name });
    else if (out.length >= MAX_IMAGES) problem = t("attach.tooMany", { count: MAX_IMAGES });
    else if (total > MAX_IMAGE_BYTES) problem = t("attach.tooLarge", { name: file.name, mb: MAX_IMAGE_BYTES / 1e6 });
    else out.push({ name: file.name || "image", size: file.size, data: await base64Of(file), url: URL.createObjectURL(file) });
  }
  return { images: out, problem };
}

/** Pictures a taken-back exchange listed (`retract`'s `pictures`), to send again by reference. */
export function storedPictures(pictures) {
  return pictures.map((p) => ({
    name: p.name,
    url: `/api/slices/${encodeURIComponent(p.slice_id)}/images/${p.file}`,
    stored: { slice_id: p.slice_id, file: p.file, name: p.name },
  }));
}

/** What `POST /api/turns` takes. */
export function uploads(images) {
  return images.map((a) => ({ name: a.name, data: a.data }));
}

/** Thumbnails of pictures about to be sent (removable) or sent with a message. */
export function Thumbs({ images, onRemove = null, t, testid = "attached-image" }) {
  if (!images || images.length === 0) return null;
  return html`<ul class="attach-thumbs">
    ${images.map(
      (a, i) => html`<li data-testid=${testid}>
        <img src=${a.url} alt=${a.name} loading="lazy" />
        ${onRemove &&
        html`<button type="button" class="attach-remove" aria-label=${t("attach.remove", { name: a.name })} onClick=${() => onRemove(i)}>
          <${Icon} name="x" size=${12} />
        </button>`}
      </li>`,
    )}
  </ul>`;
}

// core/media/attach.py links each stored picture from the user's turn as ![name](../images/<file>).
const LINK_RE = /!\[([^\]\n]*)\]\(\.\.\/images\/([A-Za-z0-9_-]{1,64}-\d{1,2}\.(?:png|jpg|webp))\)/g;

/** A stored turn's words without its picture links (the thumbnails stand for them). */
export function withoutPictureLinks(content) {
  return String(content || "").replace(LINK_RE, "").trimEnd();
}

/** The pictures a stored turn links, as thumbnails served by the API. */
export function storedImages(content, sliceId) {
  return [...String(content || "").matchAll(LINK_RE)].map((m) => ({
    name: m[1],
    url: `/api/slices/${encodeURIComponent(sliceId)}/images/${m[2]}`,
  }));
}
