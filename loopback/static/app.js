// The playground's page: one member's view of a loopback Discord channel. Plain JS, no build.
// Everything the member does goes to POST /ui/act, which acts through loopback.users.Member.
"use strict";

const params = new URLSearchParams(location.search);
const NAME_RE = /^[a-z0-9_.]{1,32}$/;
// who you are: ?as=NAME, else the last name used here; remembered once the server took it
// (start() falls back to a valid player when it refuses the name, and corrects the URL)
let ME = (params.get("as") || localStorage.getItem("playground-as") || "alice").trim().toLowerCase();
let state = null;          // /ui/state: guild, me, bot, channels, users, commands
let channelId = params.get("channel");
let source = null;         // EventSource
const messages = new Map(); // id -> message payload
const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// ---------------------------------------------------------------- talking to the server
async function act(body) {
  const res = await fetch("/ui/act", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ as: ME, channel: channelId, ...body }),
  });
  let data;
  try { data = await res.json(); } catch (e) { data = { ok: false, error: "no answer" }; }
  return data;
}

function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

function closeStream() {
  if (source) { source.close(); source = null; }
}

function connect() {
  closeStream();
  messages.clear();
  $("#messages").querySelectorAll(".msg-wrap").forEach((n) => n.remove());
  const url = `/ui/events?as=${encodeURIComponent(ME)}&channel=${encodeURIComponent(channelId)}`;
  source = new EventSource(url);
  source.addEventListener("meta", (ev) => { state = JSON.parse(ev.data); renderMeta(); });
  source.addEventListener("message", (ev) => upsert(JSON.parse(ev.data)));
  source.addEventListener("delete", (ev) => {
    const id = JSON.parse(ev.data).id;
    messages.delete(id);
    const node = document.getElementById("m" + id);
    if (node) node.remove();
  });
  source.addEventListener("channel_deleted", () => { toast("This channel was deleted."); });
}

// ---------------------------------------------------------------- guild, channels, users
function renderMeta() {
  $("#guild-name").textContent = state.guild.name;
  const list = $("#channels");
  list.textContent = "";
  for (const c of state.channels) {
    const cls = [c.id === channelId ? "active" : "", c.parent ? "thread" : "",
      c.archived ? "archived" : ""].filter(Boolean).join(" ");
    const li = el("li", cls, c.name);
    li.dataset.id = c.id;
    if (c.parent) { li.dataset.parent = c.parent; li.title = `Thread in #${channelName(c.parent)}`; }
    list.appendChild(li);
  }
  const ch = state.channels.find((c) => c.id === channelId);
  $("#channel-name").textContent = ch ? ch.name : "";
  $("#topbar .hash").textContent = ch && ch.parent ? "🧵" : "#";
  document.title = `#${ch ? ch.name : ""} · ${state.me.display} · UNO playground`;
  $("#composer-input").placeholder = cmdMode ? "" : `Type / to use a command in #${ch ? ch.name : ""}`;
  const status = $("#bot-status");
  status.textContent = state.bot.online ? state.bot.display : `${state.bot.display} is offline`;
  status.className = "status" + (state.bot.online ? " online" : "");
  const sw = $("#user-switch");
  sw.textContent = "";
  for (const u of state.users) {
    const o = el("option", "", u.display);
    o.value = u.name;
    o.selected = u.name === ME;
    sw.appendChild(o);
  }
  sw.appendChild(Object.assign(el("option", "", "New user…"), { value: "" }));
  $("#me-name").textContent = state.me.display;
  paintAvatar($("#me-avatar"), state.me);
  const other = state.users.find((u) => u.name !== ME);
  $("#new-tab").href = `?as=${other ? other.name : "bob"}&channel=${channelId}`;
  $("#welcome").innerHTML = "";
  const h = el("h1", "", `Welcome to #${ch ? ch.name : ""}!`);
  $("#welcome").append(h, el("div", "",
    "This is the real bot on a local Discord. Type /uno new to open a game, add computer " +
    "players and start. Switch player with “As” (or open ↗ a tab per player): each sees " +
    "only their own private answers."));
}

function channelName(id) {
  const c = state && state.channels.find((x) => x.id === id);
  return c ? c.name : "unknown";
}

function switchChannel(id) {
  if (id === channelId) { $("#app").classList.remove("nav-open"); return; }
  channelId = id;
  const p = new URLSearchParams(location.search);
  p.set("as", ME);
  p.set("channel", id);
  history.replaceState(null, "", "?" + p.toString());
  $("#app").classList.remove("nav-open");
  resetComposer();
  connect();
}

const COLORS = ["#5865f2", "#57f287", "#fee75c", "#eb459e", "#ed4245", "#3ba55c", "#faa61a", "#9b59b6"];
function paintAvatar(node, user) {
  let h = 0;
  for (const ch of user.id || user.name) h = (h * 31 + ch.charCodeAt(0)) % 9973;
  node.style.background = user.bot ? "#5865f2" : COLORS[h % COLORS.length];
  node.textContent = user.bot ? "🤖" : (user.display || user.name || "?")[0].toUpperCase();
}

// ---------------------------------------------------------------- text (Discord markdown)
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}
function userName(id) {
  if (!state) return id;
  const u = state.users.find((x) => x.id === id);
  if (u) return u.display;
  if (state.bot.id === id) return state.bot.display;
  return "unknown-user";
}
function inline(s) {
  let t = esc(s);
  t = t.replace(/`([^`]+)`/g, (m, c) => `<code>${c}</code>`);
  t = t.replace(/\*\*(.+?)\*\*/g, "<b>$1</b>");
  t = t.replace(/__(.+?)__/g, "<u>$1</u>");
  t = t.replace(/(^|[^*])\*(?!\s)(.+?)\*/g, "$1<i>$2</i>");
  t = t.replace(/(^|\W)_(?!\s)(.+?)_(?=\W|$)/g, "$1<i>$2</i>");
  t = t.replace(/~~(.+?)~~/g, "<s>$1</s>");
  t = t.replace(/&lt;@!?(\d+)&gt;/g, (m, id) =>
    `<span class="mention${id === (state && state.me.id) ? " me" : ""}">@${esc(userName(id))}</span>`);
  t = t.replace(/&lt;#(\d+)&gt;/g, (m, id) => {
    const c = state && state.channels.find((x) => x.id === id);
    return `<a class="mention channel" data-channel="${id}">${c && c.parent ? "🧵" : "#"}` +
      `${esc(c ? c.name : "unknown")}</a>`;
  });
  t = t.replace(/&lt;a?:(\w+):(\d+)&gt;/g,
    '<img class="emoji" src="/emojis/$2.png" alt=":$1:" title=":$1:">');
  t = t.replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2" target="_blank" rel="noopener">$1</a>');
  return t;
}
function md(text) {
  if (!text) return "";
  const out = [];
  const parts = String(text).split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) { out.push(`<pre><code>${esc(part.replace(/^\w*\n/, ""))}</code></pre>`); return; }
    const lines = part.split("\n");
    lines.forEach((line, j) => {
      let m;
      if ((m = line.match(/^(#{1,3}) (.*)$/))) out.push(`<h${m[1].length}>${inline(m[2])}</h${m[1].length}>`);
      else if ((m = line.match(/^-# (.*)$/))) out.push(`<div class="sub-text">${inline(m[1])}</div>`);
      else if ((m = line.match(/^> ?(.*)$/))) out.push(`<blockquote>${inline(m[1])}</blockquote>`);
      else out.push(inline(line) + (j < lines.length - 1 ? "<br>" : ""));
    });
  });
  return out.join("");
}
function fmtTime(iso) {
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}
function emojiText(e) {
  if (!e) return "";
  return e.id ? `:${e.name}:` : e.name || "";
}
// a custom emoji as its picture (the loopback serves application emojis at /emojis/ID.png)
function emojiNode(e) {
  if (!e || !e.id) return document.createTextNode(emojiText(e));
  const img = el("img", "emoji");
  img.src = `/emojis/${encodeURIComponent(e.id)}.png`;
  img.alt = img.title = `:${e.name}:`;
  return img;
}

// ---------------------------------------------------------------- messages
function cmpId(a, b) { return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0); }

// whether the list is scrolled to its end: it stays there as messages and pictures come
let pinned = true;
function atBottom(box) { return box.scrollHeight - box.scrollTop - box.clientHeight < 120; }
function keepPinned() { if (pinned) { const box = $("#messages"); box.scrollTop = box.scrollHeight; } }

function upsert(msg) {
  messages.set(msg.id, msg);
  const box = $("#messages");
  const nearBottom = pinned || atBottom(box);
  const node = renderMessage(msg);
  const old = document.getElementById("m" + msg.id);
  if (old) {
    if (old.dataset.dismissed) node.hidden = true;
    // a failed click's note stays under the message when the bot edits it (a click that
    // raced an edit fails, and the edit that beat it must not hide the failure)
    const failed = old.querySelector(".failed");
    if (failed) node.querySelector(".body").appendChild(failed);
    old.replaceWith(node);
  } else {
    const after = [...box.querySelectorAll(".msg-wrap")].find((n) => cmpId(n.dataset.id, msg.id) > 0);
    box.insertBefore(node, after || null);
  }
  if (nearBottom || !old) { box.scrollTop = box.scrollHeight; pinned = true; }
}

function renderMessage(msg) {
  const wrap = el("div", "msg-wrap");
  wrap.id = "m" + msg.id;
  wrap.dataset.id = msg.id;
  if (msg.used) {
    const u = el("div", "used");
    u.innerHTML = `<b>${esc(msg.used.user.display)}</b> ` +
      (msg.used.command ? `used <span class="cmd">/${esc(msg.used.command.replace(/^\//, ""))}</span>`
        : "clicked");
    wrap.appendChild(u);
  }
  const row = el("div", "msg" + (msg.ephemeral ? " ephemeral" : ""));
  if (state && (msg.content || "").includes(`<@${state.me.id}>`)) row.classList.add("mentions-me");
  row.dataset.id = msg.id;
  const author = { id: msg.author.id, name: msg.author.username,
    display: msg.author.global_name || msg.author.username, bot: msg.author.bot };
  const av = el("div", "avatar");
  paintAvatar(av, author);
  const body = el("div", "body");
  const head = el("div", "head");
  head.append(el("span", "author", author.display));
  if (author.bot) head.append(el("span", "tag", "App"));
  head.append(el("span", "time", fmtTime(msg.timestamp) + (msg.edited_timestamp ? " (edited)" : "")));
  body.appendChild(head);
  if (msg.loading) {
    body.appendChild(el("div", "thinking", `${author.display} is thinking`));
  } else {
    // a thread started without a message leaves a notice (type 18) naming the thread
    const ref = msg.message_reference || {};
    const text = msg.type === 18 && ref.channel_id ? `🧵 started a thread: <#${ref.channel_id}>`
      : msg.content;
    if (text) {
      const c = el("div", "content");
      c.innerHTML = md(text);
      body.appendChild(c);
    }
    for (const e of msg.embeds || []) body.appendChild(renderEmbed(e));
    // a file the message shows in an embed or a component (a V2 message shows only
    // those) is not shown again beside it, as in Discord
    for (const a of msg.attachments || []) if (!a.inline) body.appendChild(renderAttachment(a));
    for (const comp of msg.components || []) body.appendChild(renderComponent(comp, msg));
  }
  if (msg.ephemeral) {
    const note = el("div", "eph-note");
    note.innerHTML = '👁 Only you can see this · <a>Dismiss message</a>';
    note.querySelector("a").onclick = () => { wrap.hidden = true; wrap.dataset.dismissed = "1"; };
    body.appendChild(note);
  }
  row.append(av, body);
  wrap.appendChild(row);
  return wrap;
}

function renderEmbed(e) {
  const box = el("div", "embed");
  if (e.color !== undefined && e.color !== null) {
    box.style.borderLeftColor = "#" + Number(e.color).toString(16).padStart(6, "0");
  }
  if (e.thumbnail && e.thumbnail.url) box.appendChild(picture(e.thumbnail.url, "", "e-thumb"));
  if (e.author && e.author.name) box.appendChild(el("div", "e-author", e.author.name));
  if (e.title) {
    const t = el("div", "e-title");
    t.innerHTML = inline(e.title);
    box.appendChild(t);
  }
  if (e.description) {
    const d = el("div", "e-desc content");
    d.innerHTML = md(e.description);
    box.appendChild(d);
  }
  if (e.fields && e.fields.length) {
    const fs = el("div", "e-fields");
    for (const f of e.fields) {
      const fd = el("div", "e-field" + (f.inline ? " inline" : ""));
      const n = el("div", "e-field-name");
      n.innerHTML = inline(f.name || "");
      const v = el("div", "content");
      v.innerHTML = md(f.value || "");
      fd.append(n, v);
      fs.appendChild(fd);
    }
    box.appendChild(fs);
  }
  if (e.image && e.image.url) box.appendChild(picture(e.image.url, "", "e-image"));
  const foot = [e.footer && e.footer.text, e.timestamp && new Date(e.timestamp).toLocaleString()]
    .filter(Boolean).join(" • ");
  if (foot) box.appendChild(el("div", "e-footer", foot));
  return box;
}

// a picture the bot sent (attachment://NAME, served at /files/...): click to see it whole
function picture(url, alt, cls) {
  const i = el("img", cls || "");
  i.src = url || "";
  i.alt = alt || "";
  i.classList.add("zoomable");
  i.title = "Click to enlarge";
  i.onclick = () => openLightbox(i.src, i.alt);
  i.onload = keepPinned;  // a picture that comes after its message must not push the end away
  return i;
}

function openLightbox(src, alt) {
  const box = $("#lightbox");
  const img = box.querySelector("img");
  img.src = src;
  img.alt = alt || "";
  box.hidden = false;
}

function closeLightbox() { $("#lightbox").hidden = true; }

function fileName(url) {
  const path = String(url || "").split("?")[0];
  return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1).replace("attachment://", ""));
}

function renderAttachment(a) {
  if ((a.content_type || "").startsWith("image/")) {
    const d = el("div", "attachment");
    d.appendChild(picture(a.url, a.filename));
    return d;
  }
  const f = el("div", "file");
  const link = el("a", "", a.filename);
  link.href = a.url;
  link.download = a.filename;
  f.append(el("span", "", "📄"), link, el("span", "size", a.size ? `${a.size} bytes` : ""));
  return f;
}

function renderComponent(c, msg) {
  switch (c.type) {
    case 1: { // action row
      const row = el("div", "row");
      for (const child of c.components || []) row.appendChild(renderComponent(child, msg));
      return row;
    }
    case 2: return renderButton(c, msg);
    case 3: case 5: case 6: case 7: case 8: return renderSelect(c, msg);
    case 9: { // section
      const s = el("div", "c-section");
      const texts = el("div");
      for (const child of c.components || []) texts.appendChild(renderComponent(child, msg));
      s.appendChild(texts);
      if (c.accessory) s.appendChild(renderComponent(c.accessory, msg));
      return s;
    }
    case 10: { const t = el("div", "content"); t.innerHTML = md(c.content); return t; }
    case 11: return picture((c.media || {}).url, c.description || "", "c-thumb");
    case 12: {
      const g = el("div", "c-gallery");
      for (const item of c.items || []) {
        const url = (item.media || {}).url;
        g.appendChild(picture(url, item.description || fileName(url)));
      }
      return g;
    }
    case 13: return renderAttachment({ filename: fileName((c.file || {}).url),
      url: (c.file || {}).url || "#", content_type: "" });
    case 14: return el("hr", "c-sep" + (c.divider === false ? " nodiv" : ""));
    case 17: {
      const box = el("div", "c-container");
      if (c.accent_color !== undefined && c.accent_color !== null) {
        box.style.borderLeftColor = "#" + Number(c.accent_color).toString(16).padStart(6, "0");
      }
      for (const child of c.components || []) box.appendChild(renderComponent(child, msg));
      return box;
    }
    default: return el("div", "sub", `[component type ${c.type}]`);
  }
}

function showFailure(msgNode, text) {
  if (!msgNode) { toast(text); return; }
  let f = msgNode.querySelector(".failed");
  if (!f) { f = el("div", "failed"); msgNode.querySelector(".body").appendChild(f); }
  f.textContent = text;
}

async function componentAct(body, node) {
  const msgNode = node.closest(".msg");
  node.classList.add("busy");
  const old = msgNode && msgNode.querySelector(".failed");
  if (old) old.remove();
  const res = await act(body);
  node.classList.remove("busy");
  if (!res.ok) showFailure(document.querySelector(`.msg[data-id="${body.message}"]`) || msgNode,
    res.error || "This interaction failed");
  else if (res.modal) toast("The bot opened a form; forms are not supported in the playground yet.");
}

// a button's face: its emoji (a custom one as its picture, as Discord draws it) and label
function buttonFace(node, b, suffix) {
  const text = (b.label || "") + (suffix || "");
  if (b.emoji) {
    node.appendChild(b.emoji.id ? emojiNode(b.emoji) : el("span", "", emojiText(b.emoji)));
    if (text) node.appendChild(document.createTextNode(" "));
  }
  if (text) node.appendChild(document.createTextNode(text));
}

function renderButton(b, msg) {
  if (b.style === 5) {
    const a = el("a", "btn s5");
    buttonFace(a, b, " ↗");
    a.href = b.url; a.target = "_blank"; a.rel = "noopener";
    return a;
  }
  const btn = el("button", `btn s${b.style || 2}`);
  buttonFace(btn, b);
  btn.type = "button";
  btn.disabled = !!b.disabled;
  btn.dataset.customId = b.custom_id || "";
  btn.onclick = () => {
    if (btn.classList.contains("busy")) return;
    componentAct({ kind: "click", message: msg.id, custom_id: b.custom_id }, btn);
  };
  return btn;
}

function renderSelect(s, msg) {
  const box = el("div", "select" + (s.disabled ? " disabled" : ""));
  box.dataset.customId = s.custom_id;
  const min = s.min_values ?? 1;
  const max = s.max_values ?? 1;
  const picked = [];
  const bar = el("div", "select-bar");
  const ph = el("span", "ph", s.placeholder || "Make a selection");
  bar.append(ph, el("span", "", "▾"));
  box.appendChild(bar);
  let list = null;
  const submit = () => {
    if (picked.length < min || picked.length > max) return;
    close();
    componentAct({ kind: "select", message: msg.id, custom_id: s.custom_id, values: picked.slice() }, box);
  };
  const close = () => { if (list) { list.remove(); list = null; } };
  const refreshBar = () => {
    const labels = (s.options || []).filter((o) => picked.includes(o.value)).map((o) => o.label);
    ph.textContent = labels.length ? labels.join(", ") : (s.placeholder || "Make a selection");
  };
  bar.onclick = () => {
    if (s.disabled) return;
    if (list && list.isConnected) { close(); return; }
    list = el("div", "select-list");
    for (const o of s.options || []) {
      const item = el("div", "select-option" + (picked.includes(o.value) ? " picked" : ""));
      item.dataset.value = o.value;
      if (max > 1) item.appendChild(el("span", "check"));
      const text = el("span", "");
      if (o.emoji) text.append(emojiNode(o.emoji), " ");
      text.append(o.label);
      if (o.description) text.appendChild(el("span", "desc", o.description));
      item.appendChild(text);
      item.onclick = () => {
        if (max === 1) { picked.splice(0, picked.length, o.value); refreshBar(); submit(); return; }
        const i = picked.indexOf(o.value);
        if (i >= 0) picked.splice(i, 1);
        else if (picked.length < max) picked.push(o.value);
        item.classList.toggle("picked", picked.includes(o.value));
        refreshBar();
        done.disabled = picked.length < min || picked.length > max;
        done.textContent = `Done (${picked.length}/${max})`;
      };
      list.appendChild(item);
    }
    const done = el("button", "btn s1 select-done", `Done (${picked.length}/${max})`);
    done.type = "button";
    done.disabled = picked.length < min;
    done.onclick = submit;
    if (max > 1) list.appendChild(done);
    box.appendChild(list);
    placeMenu(box, list);
  };
  return box;
}

// A select's list opens downward, or upward near the composer: when its bar is in the
// lower half of the messages, or when the list does not fit below, as long as there is
// more room above (the list then stays in view instead of running under the composer).
function placeMenu(box, list) {
  const bar = box.getBoundingClientRect();
  const area = $("#messages").getBoundingClientRect();
  const floor = Math.min(area.bottom, window.innerHeight);
  const below = floor - bar.bottom;
  const above = bar.top - Math.max(area.top, 0);
  const want = Math.min(list.scrollHeight, 300);
  const low = (bar.top + bar.bottom) / 2 > (area.top + floor) / 2;
  const up = above > below && (low || want > below);
  list.classList.toggle("up", up);
  list.style.maxHeight = `${Math.max(120, Math.min(300, (up ? above : below) - 8))}px`;
}

// ---------------------------------------------------------------- the composer and slash commands
let cmdMode = null;   // {path: "uno play", leaf: {...}} while filling a command's options
const values = {};    // option name -> {value, shown}
let popupItems = [];
let popupIndex = 0;
let popupMoved = false;  // the arrows moved in the list: Enter takes the highlighted item
let focusedOption = null;

function flatCommands() {
  const out = [];
  const walk = (node, path) => {
    const subs = (node.options || []).filter((o) => o.type === 1 || o.type === 2);
    if (!subs.length) { out.push({ path: path.join(" "), leaf: node }); return; }
    for (const s of subs) walk(s, [...path, s.name]);
  };
  for (const c of (state && state.commands) || []) walk(c, [c.name]);
  return out;
}

function showPopup(title, items, onPick) {
  const pop = $("#popup");
  popupItems = items.map((it) => ({ ...it, onPick }));
  popupIndex = 0;
  popupMoved = false;
  pop.textContent = "";
  if (!items.length) { pop.hidden = true; return; }
  pop.appendChild(el("div", "popup-title", title));
  items.forEach((it, i) => {
    const d = el("div", "pop-item" + (i === 0 ? " sel" : ""));
    if (it.command) d.dataset.command = it.command;
    if (it.value !== undefined) d.dataset.value = it.value;
    d.append(el("span", "name", it.name), el("span", "desc", it.desc || ""));
    d.onmousedown = (ev) => { ev.preventDefault(); onPick(it); };
    pop.appendChild(d);
  });
  pop.hidden = false;
}
function hidePopup() { $("#popup").hidden = true; popupItems = []; }
function movePopup(delta) {
  if (!popupItems.length) return;
  popupIndex = (popupIndex + delta + popupItems.length) % popupItems.length;
  popupMoved = true;
  $("#popup").querySelectorAll(".pop-item").forEach((n, i) => n.classList.toggle("sel", i === popupIndex));
}

function setError(text) {
  const e = $("#error-line");
  e.textContent = text || "";
  e.hidden = !text;
}

function resetComposer() {
  cmdMode = null;
  for (const k of Object.keys(values)) delete values[k];
  focusedOption = null;
  $("#command-chip").hidden = true;
  $("#options").textContent = "";
  const input = $("#composer-input");
  input.hidden = false;
  input.value = "";
  hidePopup();
  setError("");
}

function onComposerInput() {
  const text = $("#composer-input").value;
  if (cmdMode) return;
  if (!text.startsWith("/")) { hidePopup(); return; }
  const q = text.slice(1).trim().toLowerCase();
  const items = flatCommands()
    .filter((c) => c.path.startsWith(q) || c.path.split(" ").slice(1).join(" ").startsWith(q))
    .slice(0, 25)
    .map((c) => ({ name: "/" + c.path, desc: c.leaf.description || "", command: c.path, leaf: c.leaf }));
  showPopup(q ? `Commands matching /${q}` : "Commands", items, (it) => pickCommand(it.command, it.leaf));
}

function pickCommand(path, leaf) {
  resetComposer();
  cmdMode = { path, leaf };
  const chip = $("#command-chip");
  chip.textContent = "/" + path;
  chip.hidden = false;
  const opts = leaf.options || [];
  const box = $("#options");
  for (const o of [...opts.filter((x) => x.required), ...opts.filter((x) => !x.required)]) {
    const wrap = el("label", "opt" + (o.required ? " required" : ""));
    wrap.dataset.option = o.name;
    wrap.title = o.description || "";
    const input = el("input");
    input.dataset.option = o.name;
    input.placeholder = o.description ? o.description.slice(0, 40) : "";
    input.onfocus = () => { focusedOption = o; wrap.classList.add("focused"); optionSuggest(o, input); };
    input.onblur = () => { wrap.classList.remove("focused"); setTimeout(hidePopup, 150); };
    input.oninput = () => { delete values[o.name]; optionSuggest(o, input); };
    input.onkeydown = keyHandler;
    wrap.append(el("span", "opt-name", o.name + ":"), input);
    box.appendChild(wrap);
  }
  const input = $("#composer-input");
  input.value = "";
  input.hidden = opts.length > 0;
  const first = box.querySelector("input");
  (first || input).focus();
}

let suggestSeq = 0;
async function optionSuggest(o, input) {
  const typed = input.value;
  const pick = (it) => {
    values[o.name] = { value: it.value, shown: it.name };
    input.value = it.name;
    hidePopup();
    const inputs = [...$("#options").querySelectorAll("input")];
    const next = inputs[inputs.indexOf(input) + 1];
    if (next) next.focus();
  };
  let items = null;
  if (o.choices && o.choices.length) {
    items = o.choices.map((c) => ({ name: c.name, value: String(c.value) }));
  } else if (o.type === 5) {
    items = [{ name: "True", value: "true" }, { name: "False", value: "false" }];
  } else if (o.type === 6 || o.type === 9) {
    items = state.users.map((u) => ({ name: u.display, value: u.id, desc: "@" + u.name }));
  } else if (o.type === 7) {
    items = state.channels.map((c) => ({ name: "#" + c.name, value: c.id }));
  } else if (o.autocomplete) {
    const seq = ++suggestSeq;
    const others = {};
    for (const [k, v] of Object.entries(values)) others[k] = v.value;
    for (const inp of $("#options").querySelectorAll("input")) {
      if (!(inp.dataset.option in others) && inp.value && inp !== input) others[inp.dataset.option] = inp.value;
    }
    const res = await act({ kind: "autocomplete", command: cmdMode.path, option: o.name, typed, options: others });
    if (seq !== suggestSeq || document.activeElement !== input) return;
    if (!res.ok) { setError(res.error || "autocomplete failed"); return; }
    setError("");
    const choices = res.choices.map((c) => ({ name: c.name, value: String(c.value) }));
    showPopup(choices.length ? `${o.name}` : `${o.name}: no match`, choices, pick);
    return;
  } else {
    hidePopup();
    return;
  }
  const q = typed.toLowerCase();
  showPopup(o.name, items.filter((it) => it.name.toLowerCase().includes(q)), pick);
}

async function send() {
  if (!cmdMode) {
    const text = $("#composer-input").value.trim();
    if (!text) return;
    if (text.startsWith("/")) {
      const exact = flatCommands().find((c) => "/" + c.path === text);
      if (exact) { pickCommand(exact.path, exact.leaf); if (!(exact.leaf.options || []).length) send(); return; }
      setError(`No command ${text}: pick one from the list.`);
    } else {
      setError("This bot reads slash commands only: type / to see them.");
    }
    return;
  }
  const options = {};
  for (const inp of $("#options").querySelectorAll("input")) {
    const name = inp.dataset.option;
    if (values[name] && values[name].shown === inp.value) options[name] = values[name].value;
    else if (inp.value.trim()) options[name] = inp.value.trim();
  }
  const missing = (cmdMode.leaf.options || []).filter((o) => o.required && !(o.name in options));
  if (missing.length) { setError(`Fill in ${missing.map((o) => o.name).join(", ")}.`); return; }
  const path = cmdMode.path;
  $("#send").disabled = true;
  const res = await act({ kind: "slash", command: path, options });
  $("#send").disabled = false;
  if (res.ok) {
    resetComposer();
    $("#composer-input").focus();
    if (res.modal) toast("The bot opened a form; forms are not supported in the playground yet.");
  } else {
    setError(res.error || "This interaction failed");
  }
}

function keyHandler(ev) {
  const popupOpen = !$("#popup").hidden && popupItems.length;
  if (ev.key === "ArrowDown" && popupOpen) { ev.preventDefault(); movePopup(1); return; }
  if (ev.key === "ArrowUp" && popupOpen) { ev.preventDefault(); movePopup(-1); return; }
  // In an option's box, Enter sends the command unless something was typed there or a
  // suggestion was chosen with the arrows (an optional True/False is offered as soon as
  // the box has the focus, and must not be filled by the Enter that means "send"); Tab
  // always takes the highlighted suggestion, and so does Enter in the command list.
  const inOption = cmdMode && ev.target.dataset && ev.target.dataset.option;
  const choosing = !inOption || popupMoved || ev.target.value !== "";
  if (popupOpen && (ev.key === "Tab" || (ev.key === "Enter" && choosing))) {
    ev.preventDefault();
    const it = popupItems[popupIndex];
    it.onPick(it);
    return;
  }
  if (ev.key === "Enter") { ev.preventDefault(); send(); return; }
  if (ev.key === "Escape") { resetComposer(); return; }
  if (ev.key === "Backspace" && cmdMode && ev.target.value === "") {
    const inputs = [...$("#options").querySelectorAll("input")];
    if (ev.target === inputs[0] || ev.target.id === "composer-input") { ev.preventDefault(); resetComposer(); }
  }
}

// ---------------------------------------------------------------- start
async function loadState(name) {
  const res = await fetch(`/ui/state?as=${encodeURIComponent(name)}`);
  try { return await res.json(); } catch (e) { return { error: "the playground did not answer" }; }
}

async function start() {
  state = await loadState(ME);
  if (state.error) {
    // a name the server refuses (not a-z0-9_., or the guild owner's) must not stick: play
    // as the last valid player, or alice, and say why; the URL and storage are corrected
    const refused = ME;
    const why = state.error;
    const last = (localStorage.getItem("playground-as") || "").toLowerCase();
    ME = last && last !== refused && NAME_RE.test(last) ? last : "alice";
    state = await loadState(ME);
    if (state.error) { document.body.textContent = state.error; return; }
    toast(`Can't play as "${refused}" (${why}): playing as ${state.me.display}.`);
  }
  localStorage.setItem("playground-as", ME);
  if (!channelId || !state.channels.some((c) => c.id === channelId)) {
    const first = state.channels.find((c) => c.name !== "general") || state.channels[0];
    channelId = first.id;
  }
  const p = new URLSearchParams(location.search);
  p.set("as", ME);
  p.set("channel", channelId);
  history.replaceState(null, "", "?" + p.toString());
  renderMeta();
  connect();
  $("#messages").addEventListener("scroll", (ev) => { pinned = atBottom(ev.target); });
  const input = $("#composer-input");
  input.addEventListener("input", onComposerInput);
  input.addEventListener("keydown", keyHandler);
  input.addEventListener("blur", () => setTimeout(() => { if (!cmdMode) hidePopup(); }, 150));
  $("#composer").addEventListener("submit", (ev) => { ev.preventDefault(); send(); });
  $("#user-switch").addEventListener("change", (ev) => {
    let name = ev.target.value;
    if (!name) name = (prompt("Name of the new user (a-z, 0-9, _):") || "").trim().toLowerCase();
    if (!name) { renderMeta(); return; }
    closeStream();
    location.search = `?as=${encodeURIComponent(name)}&channel=${channelId}`;
  });
  $("#add-channel").addEventListener("click", async () => {
    const name = prompt("New channel name:", `uno-${state.channels.length}`);
    if (!name) return;
    const r = await fetch("/ui/channels", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name }) });
    const data = await r.json();
    if (data.error) { toast(data.error); return; }
    switchChannel(data.id);
  });
  $("#menu-toggle").addEventListener("click", (ev) => {
    ev.stopPropagation();
    $("#app").classList.toggle("nav-open");
  });
  // the drawer (narrow screens) closes on a pick and on a tap beside it
  $("#channels").addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-id]");
    if (li) switchChannel(li.dataset.id);
  });
  $("#main").addEventListener("click", () => $("#app").classList.remove("nav-open"));
  // a page left (another player chosen with "As", a reload, a link) closes its event
  // stream: the browser keeps the page in its back/forward cache with the stream open, and
  // after a few switches every connection it allows this host is held by a page nobody
  // sees (a load then waits up to a minute); a page brought back from that cache reopens it
  window.addEventListener("pagehide", closeStream);
  window.addEventListener("pageshow", (ev) => { if (ev.persisted) connect(); });
  $("#lightbox").addEventListener("click", closeLightbox);
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeLightbox(); });
  document.addEventListener("click", (ev) => {
    if (!ev.target.closest(".select")) document.querySelectorAll(".select-list").forEach((n) => n.remove());
    const mention = ev.target.closest(".mention.channel");
    if (mention && state.channels.some((c) => c.id === mention.dataset.channel)) {
      switchChannel(mention.dataset.channel);
    }
  });
}
start();
