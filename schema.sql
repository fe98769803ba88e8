-- The whole database schema of svc-gateway: one source of truth.
--
-- The file is a sequence of numbered migrations. Each starts with a line
--   -- migration N: what it adds
-- and runs once, in order, in one transaction at start-up; PRAGMA user_version
-- records the last one applied. Never edit a migration that has landed: add a
-- new one. A database newer than the last migration here refuses to open.
--
-- Conventions: timestamps are unix milliseconds in INTEGER columns named *_at
-- or ts, unless a comment says seconds (signed-record times are seconds).
-- Callsigns are stored upper-case.

-- migration 1: core tables and the privacy-limited data the pruner manages

-- Instance-level settings and generated secrets (VAPID keys, setup token, ...).
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Track points of stations. Firehose and browser-RF points are pruned after
-- 7 days; a point that corroborates a find (find_id set) is kept as long as
-- that find.
CREATE TABLE positions (
  id        INTEGER PRIMARY KEY,
  call      TEXT NOT NULL,
  ts        INTEGER NOT NULL,
  lat       REAL NOT NULL,
  lon       REAL NOT NULL,
  alt_m     REAL,
  course    INTEGER,
  speed_kmh REAL,
  source    TEXT NOT NULL,          -- rf | aprsis | browser | ingest | wx
  igate     TEXT,                   -- the IGate that heard it on RF, when known
  packet_id INTEGER,                -- raw packet (the ring is pruned sooner)
  find_id   INTEGER                 -- the find this point corroborates
);
CREATE INDEX positions_prune ON positions(ts) WHERE find_id IS NULL;
CREATE INDEX positions_call_ts ON positions(call, ts);

-- The raw packet ring, pruned after PACKETS_TTL_HOURS.
CREATE TABLE packets (
  id     INTEGER PRIMARY KEY,
  ts     INTEGER NOT NULL,
  src    TEXT NOT NULL,
  dst    TEXT,
  path   TEXT,
  raw    BLOB NOT NULL,             -- the TNC2 line as heard, byte for byte
  source TEXT NOT NULL,             -- rf | aprsis | ingest
  igate  TEXT,
  type   TEXT                       -- decoded packet type, or the decode error code
);
CREATE INDEX packets_ts ON packets(ts);
CREATE INDEX packets_src_ts ON packets(src, ts);

-- APRS message log (messages, acks, rejects, bulletins), MESSAGES_TTL_DAYS.
CREATE TABLE aprs_messages (
  id        INTEGER PRIMARY KEY,
  ts        INTEGER NOT NULL,
  src       TEXT NOT NULL,
  addressee TEXT NOT NULL,
  kind      TEXT NOT NULL,          -- message | ack | rej | bulletin | announcement
  text      TEXT NOT NULL,
  msg_id    TEXT,
  source    TEXT,
  igate     TEXT
);
CREATE INDEX aprs_messages_ts ON aprs_messages(ts);
CREATE INDEX aprs_messages_addressee ON aprs_messages(addressee, ts);

-- Telemetry and weather readings, SENSOR_TTL_DAYS.
CREATE TABLE sensor_readings (
  id   INTEGER PRIMARY KEY,
  call TEXT NOT NULL,
  ts   INTEGER NOT NULL,
  kind TEXT NOT NULL,               -- telemetry | wx
  data TEXT NOT NULL                -- JSON object of values
);
CREATE INDEX sensor_readings_ts ON sensor_readings(ts);
CREATE INDEX sensor_readings_call_ts ON sensor_readings(call, kind, ts);

-- Radio port counter samples, PORT_COUNTERS_TTL_DAYS.
CREATE TABLE port_counters (
  id        INTEGER PRIMARY KEY,
  port      TEXT NOT NULL,
  ts        INTEGER NOT NULL,
  rx_frames INTEGER NOT NULL DEFAULT 0,
  tx_frames INTEGER NOT NULL DEFAULT 0,
  rx_bytes  INTEGER NOT NULL DEFAULT 0,
  tx_bytes  INTEGER NOT NULL DEFAULT 0,
  errors    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX port_counters_ts ON port_counters(ts);

-- Stations heard directly per radio port, MHEARD_TTL_DAYS after last heard.
CREATE TABLE mheard (
  port     TEXT NOT NULL,
  call     TEXT NOT NULL,
  first_ts INTEGER NOT NULL,
  last_ts  INTEGER NOT NULL,
  frames   INTEGER NOT NULL DEFAULT 0,
  via      TEXT,                    -- digipeater path of the last frame
  PRIMARY KEY (port, call)
);
CREATE INDEX mheard_last ON mheard(last_ts);

-- Tombstones (deleted global record ids), TOMBSTONE_TTL_DAYS after receipt.
CREATE TABLE tombstones (
  gid         TEXT PRIMARY KEY,
  origin      TEXT NOT NULL,
  v           INTEGER NOT NULL,
  at          INTEGER NOT NULL,     -- signing time, unix seconds
  received_at INTEGER NOT NULL,
  frame       BLOB                  -- the signed frame, when we have it
);
CREATE INDEX tombstones_received ON tombstones(received_at);

-- Relay rendezvous queue for packet-only spokes, pruned after RELAY_QUEUE_TTL_HOURS.
CREATE TABLE relay_queue (
  id          INTEGER PRIMARY KEY,
  instance    TEXT NOT NULL,        -- the spoke the query is addressed to
  state       TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'answered')),
  query       TEXT NOT NULL,        -- JSON query params
  answer      BLOB,
  created_at  INTEGER NOT NULL,
  leased_at   INTEGER,
  answered_at INTEGER
);
CREATE INDEX relay_queue_created ON relay_queue(created_at);
CREATE INDEX relay_queue_instance ON relay_queue(instance, state);

-- migration 2: accounts core: users, callsigns, sessions, device keys, API keys

-- A person using this instance. No name or address: profiles are opt-in fields.
CREATE TABLE users (
  id         INTEGER PRIMARY KEY,
  email      TEXT UNIQUE,            -- e-mail sign-in address, if used
  profile    TEXT NOT NULL DEFAULT '{}',  -- opt-in public profile fields (JSON)
  created_at INTEGER NOT NULL
);

-- Callsigns an account holds: base calls and SSIDs; one is active. A callsign
-- is verified once an APRS challenge from it was heard.
CREATE TABLE callsigns (
  id          INTEGER PRIMARY KEY,
  user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  call        TEXT NOT NULL,          -- N0CALL or N0CALL-9
  active      INTEGER NOT NULL DEFAULT 0,
  verified_at INTEGER,
  created_at  INTEGER NOT NULL,
  UNIQUE (user_id, call)
);
CREATE INDEX callsigns_call ON callsigns(call);
CREATE UNIQUE INDEX callsigns_one_active ON callsigns(user_id) WHERE active = 1;

-- Sign-in sessions. Only a hash of the cookie value is stored.
CREATE TABLE sessions (
  id_hash    TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expires ON sessions(expires_at);

-- Ed25519 device keys registered to a base callsign (signed-body gate, ingest).
CREATE TABLE device_keys (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER REFERENCES users(id) ON DELETE CASCADE,
  call       TEXT NOT NULL,           -- base callsign the key speaks for
  public_key TEXT NOT NULL UNIQUE,    -- base64url, 32 bytes
  label      TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX device_keys_call ON device_keys(call);

-- Signed-body assertions already used, kept until they could no longer be fresh.
CREATE TABLE used_assertions (
  sig        TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX used_assertions_expires ON used_assertions(expires_at);

-- Free API keys for /api/v1 (a higher rate limit). Only a hash is stored.
CREATE TABLE api_keys (
  id           INTEGER PRIMARY KEY,
  key_hash     TEXT NOT NULL UNIQUE,
  label        TEXT,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER
);

-- migration 3: sign-in: passkeys, WebAuthn challenges, e-mail sign-in tokens, public account ids

-- An opaque, random id per account: the WebAuthn user handle and the local id of
-- the account's federated records (never a callsign, so a tombstone of it is PII-free).
ALTER TABLE users ADD COLUMN public_id TEXT;
CREATE UNIQUE INDEX users_public_id ON users(public_id) WHERE public_id IS NOT NULL;

-- WebAuthn credentials (passkeys) of an account.
CREATE TABLE passkeys (
  id           TEXT PRIMARY KEY,        -- credential id, base64url
  user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  public_key   BLOB NOT NULL,           -- COSE public key
  counter      INTEGER NOT NULL DEFAULT 0,
  transports   TEXT,                    -- JSON array, as the browser reported
  label        TEXT,
  created_at   INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX passkeys_user ON passkeys(user_id);

-- Outstanding WebAuthn challenges: each is used once, within a few minutes.
CREATE TABLE webauthn_challenges (
  challenge  TEXT PRIMARY KEY,          -- base64url, as it comes back in clientDataJSON
  kind       TEXT NOT NULL CHECK (kind IN ('register', 'login')),
  user_id    INTEGER REFERENCES users(id) ON DELETE CASCADE,  -- register: the signed-in account, if any
  user_handle TEXT,                     -- register: the public id the new credential is made for
  expires_at INTEGER NOT NULL
);
CREATE INDEX webauthn_challenges_expires ON webauthn_challenges(expires_at);

-- E-mail sign-in: a one-time link token and a short code, both stored hashed.
CREATE TABLE email_tokens (
  id         INTEGER PRIMARY KEY,
  email      TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  code_hash  TEXT NOT NULL,
  attempts   INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX email_tokens_email ON email_tokens(email);
CREATE INDEX email_tokens_expires ON email_tokens(expires_at);

-- migration 4: federation: this instance's published records (the local feed) and key history

-- The latest version of every record this instance publishes, one row per gid.
-- seq is the sync cursor: a new version gets a new seq, so an incremental pull
-- (since=cursor) sees it. A tombstone replaces its record's row; tombstone rows
-- are pruned after TOMBSTONE_TTL_DAYS.
CREATE TABLE fed_feed (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  type       INTEGER NOT NULL,       -- 1 cache ... 7 peer descriptor
  gid        TEXT NOT NULL UNIQUE,   -- origin:kind:localid
  v          INTEGER NOT NULL,       -- per-gid version
  at         INTEGER NOT NULL,       -- signing time, unix seconds
  payload    BLOB NOT NULL,          -- deterministic CBOR payload
  frame      BLOB,                   -- the signed frame; NULL while the instance is unsigned
  signer_key TEXT,                   -- the key that signed frame
  created_at INTEGER NOT NULL        -- when this version was stored
);
CREATE INDEX fed_feed_type_seq ON fed_feed(type, seq);
CREATE INDEX fed_feed_tombstones ON fed_feed(created_at) WHERE type = 5;

-- Every signing key this instance has used, and the signed rotation records
-- that chain them (served in /.well-known/svc).
CREATE TABLE fed_own_keys (
  public_key TEXT PRIMARY KEY,       -- base64url
  status     TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  since      INTEGER NOT NULL,       -- first used, unix seconds
  rotation   TEXT                    -- the signed rotation document that introduced it (JSON)
);

-- migration 5: callsign verification challenges (APRS)

-- A code the account sends as an APRS message from the callsign. The decision
-- is made on a message actually heard (ingest box, APRS-IS or RF).
CREATE TABLE callsign_challenges (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  call       TEXT NOT NULL,             -- base callsign being verified
  code       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  heard_at   INTEGER,                   -- when the message carrying the code was heard
  heard_src  TEXT,                      -- the exact source (with SSID) it came from
  heard_via  TEXT                       -- how: rf via an IGate, aprsis, ingest, or "operator" (CLI)
);
CREATE INDEX callsign_challenges_call ON callsign_challenges(call, expires_at);
CREATE INDEX callsign_challenges_user ON callsign_challenges(user_id);
-- migration 6: the live station registry: stations and their map index, who heard each packet, own stations, weather keys, the APRS outbox

-- How a packet or position reached us: tnc (this station's radio), aprsis
-- (our APRS-IS client), ingest (the operator's ingest box), web. `source` says
-- who heard it: rf (on the air, by `igate`), or the feed when no RF IGate is known.
ALTER TABLE packets ADD COLUMN via TEXT;
ALTER TABLE positions ADD COLUMN via TEXT;
CREATE INDEX positions_rf ON positions(call, ts) WHERE source = 'rf';

-- One row per station, object or item heard: its latest state. Pruned with
-- the positions (7 days after it was last heard).
CREATE TABLE stations (
  id               INTEGER PRIMARY KEY,
  call             TEXT NOT NULL UNIQUE COLLATE NOCASE, -- callsign, or object/item name
  kind             TEXT NOT NULL DEFAULT 'station',     -- station | object | item
  owner            TEXT,                  -- objects and items: the station that sent them
  alive            INTEGER NOT NULL DEFAULT 1,
  lat              REAL,
  lon              REAL,
  ambiguity        INTEGER,
  symbol           TEXT,
  course           INTEGER,
  speed_kmh        REAL,
  alt_m            REAL,
  comment          TEXT,
  status           TEXT,
  device           TEXT,
  messaging        INTEGER,
  first_heard      INTEGER NOT NULL,
  last_heard       INTEGER NOT NULL,
  last_position_at INTEGER,
  packets          INTEGER NOT NULL DEFAULT 0,
  source           TEXT,                  -- of the last packet: rf | aprsis | ingest | web
  igate            TEXT,
  path             TEXT,
  wx               TEXT,                  -- latest weather (JSON)
  wx_at            INTEGER,
  telemetry_defs   TEXT                   -- PARM/UNIT/EQNS/BITS (JSON)
);
CREATE INDEX stations_last_heard ON stations(last_heard);
CREATE VIRTUAL TABLE stations_geo USING rtree(id, min_lat, max_lat, min_lon, max_lon);
CREATE TRIGGER stations_geo_insert AFTER INSERT ON stations WHEN new.lat IS NOT NULL BEGIN
  INSERT INTO stations_geo VALUES (new.id, new.lat, new.lat, new.lon, new.lon);
END;
CREATE TRIGGER stations_geo_update AFTER UPDATE OF lat, lon ON stations
  WHEN new.lat IS NOT NULL AND (old.lat IS NOT new.lat OR old.lon IS NOT new.lon) BEGIN
  DELETE FROM stations_geo WHERE id = new.id;
  INSERT INTO stations_geo VALUES (new.id, new.lat, new.lat, new.lon, new.lon);
END;
CREATE TRIGGER stations_geo_delete AFTER DELETE ON stations BEGIN
  DELETE FROM stations_geo WHERE id = old.id;
END;

-- Stations a user runs (a weather station, a tracker, their own call). The
-- living-cache flag makes the station's beacon a cache's position (issue 6
-- reads it); wx_tx turns on transmitting its weather as APRS.
CREATE TABLE my_stations (
  id            INTEGER PRIMARY KEY,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  call          TEXT NOT NULL,
  label         TEXT,
  lat           REAL,                    -- fixed position (weather stations that do not beacon)
  lon           REAL,
  living_cache  INTEGER NOT NULL DEFAULT 0,
  cache_name    TEXT,
  wx_tx         INTEGER NOT NULL DEFAULT 0,
  wx_tx_last_at INTEGER,
  created_at    INTEGER NOT NULL,
  UNIQUE (user_id, call)
);
CREATE INDEX my_stations_call ON my_stations(call);

-- Weather push keys, one per own station; only a hash is stored.
CREATE TABLE wx_keys (
  key_hash   TEXT PRIMARY KEY,
  station_id INTEGER NOT NULL UNIQUE REFERENCES my_stations(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);

-- APRS lines waiting to be transmitted (by the ingest box, the local TNC or
-- APRS-IS): leased, reported sent, retried until acked when they carry a
-- message id. Rows are pruned 7 days after they were created.
CREATE TABLE aprs_outbox (
  id            INTEGER PRIMARY KEY,
  kind          TEXT NOT NULL,           -- message | ack | position | status | weather | object
  src           TEXT NOT NULL,
  addressee     TEXT,
  msg_id        TEXT,
  line          TEXT NOT NULL,           -- the TNC2 line to send
  state         TEXT NOT NULL DEFAULT 'queued', -- queued | leased | sent | acked | rejected | failed
  attempts      INTEGER NOT NULL DEFAULT 0,
  max_attempts  INTEGER NOT NULL DEFAULT 1,
  next_at       INTEGER NOT NULL,        -- not before this time (retry back-off)
  lease_until   INTEGER,
  leased_by     TEXT,
  user_id       INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at    INTEGER NOT NULL,
  sent_at       INTEGER,
  done_at       INTEGER,
  error         TEXT
);
CREATE INDEX aprs_outbox_due ON aprs_outbox(state, next_at);
CREATE INDEX aprs_outbox_match ON aprs_outbox(src, addressee, msg_id);
CREATE INDEX aprs_outbox_created ON aprs_outbox(created_at);

-- migration 7: a coarser station map index, updated only when a station changes 0.01-degree cell

-- Moving stations beacon every minute; re-indexing each small move cost more
-- than the map query gains. The R*Tree now holds each station's 0.01° cell
-- (about 1 km) and is touched only when the cell changes; queries filter the
-- exact position on the station row.
DROP INDEX positions_rf;
DROP TRIGGER stations_geo_insert;
DROP TRIGGER stations_geo_update;
DELETE FROM stations_geo;
INSERT INTO stations_geo SELECT id, floor(lat * 100) / 100, floor(lat * 100) / 100 + 0.01, floor(lon * 100) / 100, floor(lon * 100) / 100 + 0.01 FROM stations WHERE lat IS NOT NULL;
CREATE TRIGGER stations_geo_insert AFTER INSERT ON stations WHEN new.lat IS NOT NULL BEGIN
  INSERT INTO stations_geo VALUES (new.id, floor(new.lat * 100) / 100, floor(new.lat * 100) / 100 + 0.01, floor(new.lon * 100) / 100, floor(new.lon * 100) / 100 + 0.01);
END;
CREATE TRIGGER stations_geo_update AFTER UPDATE OF lat, lon ON stations
  WHEN new.lat IS NOT NULL AND (old.lat IS NULL OR floor(old.lat * 100) IS NOT floor(new.lat * 100) OR floor(old.lon * 100) IS NOT floor(new.lon * 100)) BEGIN
  DELETE FROM stations_geo WHERE id = new.id;
  INSERT INTO stations_geo VALUES (new.id, floor(new.lat * 100) / 100, floor(new.lat * 100) / 100 + 0.01, floor(new.lon * 100) / 100, floor(new.lon * 100) / 100 + 0.01);
END;

-- migration 8: federation: peers and their keys, quarantine counters, mirrored records

-- Other instances. trust: trusted (FED_PEERS, or promoted), unvetted
-- (discovered: mirrored but hidden by default), blocked (never mirrored).
-- An origin with no row here is unknown, so quarantined.
CREATE TABLE peers (
  id              INTEGER PRIMARY KEY,
  instance        TEXT NOT NULL UNIQUE,  -- the peer's instance id (its records' origin)
  url             TEXT,                  -- legacy https fallback
  endpoints       TEXT NOT NULL DEFAULT '[]',  -- JSON [{transport,address,priority}], re-validated on load
  trust           TEXT NOT NULL DEFAULT 'unvetted' CHECK (trust IN ('trusted', 'unvetted', 'blocked')),
  key_pin         TEXT,                  -- the key pinned at onboarding (base64url)
  verified_via    TEXT,                  -- e.g. coord-lot (44net onboarding)
  rep_confirmed   INTEGER NOT NULL DEFAULT 0,
  rep_failed      INTEGER NOT NULL DEFAULT 0,
  frames_applied  INTEGER NOT NULL DEFAULT 0,
  frames_rejected INTEGER NOT NULL DEFAULT 0,
  last_applied_at INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);

-- The keys a peer's records are accepted under: the pin, and keys reached from
-- it by signed rotation records. Any active key is accepted.
CREATE TABLE peer_keys (
  peer_id    INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
  public_key TEXT NOT NULL,              -- base64url
  status     TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  via        TEXT NOT NULL,              -- pin | rotation | operator
  added_at   INTEGER NOT NULL,
  PRIMARY KEY (peer_id, public_key)
);

-- Frames refused because their origin is unknown or blocked: counted, never applied.
CREATE TABLE fed_quarantine (
  origin   TEXT PRIMARY KEY,
  reason   TEXT NOT NULL,                -- unknown | blocked
  frames   INTEGER NOT NULL DEFAULT 0,
  first_at INTEGER NOT NULL,
  last_at  INTEGER NOT NULL
);
CREATE INDEX fed_quarantine_last ON fed_quarantine(last_at);

-- Mirrored records: the newest verified frame of each gid from other
-- instances. Display-only: local writes never touch these tables, and native
-- tables never hold another instance's records. The typed tables below hold
-- the decoded fields and go with their mirror_records row.
CREATE TABLE mirror_records (
  gid         TEXT PRIMARY KEY,
  type        INTEGER NOT NULL,
  origin      TEXT NOT NULL,
  v           INTEGER NOT NULL,
  at          INTEGER NOT NULL,          -- signing time, unix seconds
  frame       BLOB NOT NULL,             -- the frame exactly as verified
  via         TEXT NOT NULL,             -- the transport it came by
  received_at INTEGER NOT NULL
);
CREATE INDEX mirror_records_origin ON mirror_records(origin, type);

CREATE TABLE mirror_caches (
  gid            TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin         TEXT NOT NULL,
  name           TEXT NOT NULL,
  type           TEXT NOT NULL,
  size           TEXT NOT NULL,
  difficulty     REAL NOT NULL,          -- 1..5 (difficultyX10 / 10)
  terrain        REAL NOT NULL,
  lat            REAL NOT NULL,          -- degrees (latE7 / 1e7)
  lon            REAL NOT NULL,
  status         TEXT NOT NULL,
  hint           TEXT,
  description    TEXT,                   -- NULL for an unlisted cache
  unlisted       INTEGER NOT NULL DEFAULT 0,
  owner_call     TEXT,
  owner_account  TEXT,                   -- account gid
  placed_at      INTEGER,                -- unix ms
  updated_at     INTEGER NOT NULL        -- signing time of this version, unix ms
);
CREATE INDEX mirror_caches_lat_lon ON mirror_caches(lat, lon);
CREATE INDEX mirror_caches_origin ON mirror_caches(origin);
CREATE INDEX mirror_caches_owner ON mirror_caches(owner_account);

CREATE TABLE mirror_finds (
  gid         TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin      TEXT NOT NULL,
  cache_gid   TEXT NOT NULL,
  kind        TEXT NOT NULL,             -- find | dnf | note
  call        TEXT,
  account     TEXT,
  text        TEXT,
  tier        TEXT,
  state       TEXT,
  distance_m  REAL,
  logged_at   INTEGER NOT NULL           -- unix ms
);
CREATE INDEX mirror_finds_cache ON mirror_finds(cache_gid);
CREATE INDEX mirror_finds_account ON mirror_finds(account);
CREATE INDEX mirror_finds_call ON mirror_finds(call);

CREATE TABLE mirror_keys (
  gid        TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin     TEXT NOT NULL,
  call       TEXT NOT NULL,
  public_key TEXT NOT NULL,
  account    TEXT,
  created_at INTEGER NOT NULL,           -- unix ms
  revoked_at INTEGER
);
CREATE INDEX mirror_keys_call ON mirror_keys(call);
CREATE INDEX mirror_keys_account ON mirror_keys(account);

CREATE TABLE mirror_bulletins (
  gid        TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin     TEXT NOT NULL,
  from_call  TEXT NOT NULL,
  category   TEXT NOT NULL,
  area       TEXT,
  subject    TEXT NOT NULL,
  text       TEXT NOT NULL,
  bid        TEXT,
  posted_at  INTEGER NOT NULL            -- unix ms
);
CREATE INDEX mirror_bulletins_posted ON mirror_bulletins(posted_at);

CREATE TABLE mirror_account_moves (
  gid          TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin       TEXT NOT NULL,
  from_account TEXT NOT NULL UNIQUE,
  to_account   TEXT NOT NULL
);

-- migration 9: an account's preferences, watchlist, notification settings, web push subscriptions, saved map views; moved accounts

-- Free-form web app preferences of an account (JSON object, bounded in size).
CREATE TABLE prefs (
  user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  data       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Caches an account watches (alerts for new logs). cache_id is the game's
-- local cache id; no foreign key, so the game's table can evolve on its own.
CREATE TABLE watches (
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  cache_id   INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, cache_id)
);
CREATE INDEX watches_cache ON watches(cache_id);

-- How an account wants its watch alerts.
CREATE TABLE notify_prefs (
  user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  email      INTEGER NOT NULL DEFAULT 0,     -- digests by e-mail
  push       INTEGER NOT NULL DEFAULT 0,     -- web push notifications
  digest     TEXT NOT NULL DEFAULT 'daily' CHECK (digest IN ('hourly', 'daily', 'off')),
  updated_at INTEGER NOT NULL
);

-- Web push subscriptions (the browser's PushSubscription), for this instance's VAPID key.
CREATE TABLE push_subscriptions (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  endpoint   TEXT NOT NULL UNIQUE,
  p256dh     TEXT NOT NULL,
  auth       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_ok_at INTEGER,
  failures   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX push_subscriptions_user ON push_subscriptions(user_id);

-- Saved map views; the random id is a share link (/v/:id).
CREATE TABLE views (
  id         TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  state      TEXT NOT NULL,                  -- JSON: lat, lon, zoom, layers, filters
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX views_user ON views(user_id);

-- An account that moved to another instance keeps a stub row: its public id
-- is what the account-move record re-points, and it can no longer sign in.
ALTER TABLE users ADD COLUMN moved_to TEXT;     -- the account gid on the new instance
ALTER TABLE users ADD COLUMN moved_at INTEGER;

-- migration 10: accounts imported from another instance

-- The account gid on the old instance an account was imported from (once).
ALTER TABLE users ADD COLUMN imported_from TEXT;
CREATE UNIQUE INDEX users_imported_from ON users(imported_from) WHERE imported_from IS NOT NULL;

-- migration 11: the geocaching game: caches and their map index, logs, ratings, favorites, media, stages, supporters

-- Native caches (hidden on this instance or imported from a catalog). Mirrored
-- caches of other instances live in mirror_caches. status: draft (only the
-- owner sees it), active, disabled (shown, not findable in the field),
-- archived (final; kept for its logbook). contact: the owner's contact fields
-- (JSON), shown only to signed-in users here and never federated or exported.
CREATE TABLE caches (
  id          INTEGER PRIMARY KEY AUTOINCREMENT, -- a local id is never reused: it is part of a gid
  owner_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
  owner_call  TEXT,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL,
  size        TEXT NOT NULL,
  difficulty  REAL NOT NULL,           -- 1.0-5.0 in halves
  terrain     REAL NOT NULL,
  lat         REAL NOT NULL,
  lon         REAL NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('draft', 'active', 'disabled', 'archived')),
  unlisted    INTEGER NOT NULL DEFAULT 0,
  hint        TEXT,
  description TEXT NOT NULL DEFAULT '',
  contact     TEXT,                    -- owner contact fields (JSON), never leave the instance
  placed_at   INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  source      TEXT,                    -- import source (gpx) for catalog caches; NULL = hidden here
  source_ref  TEXT,                    -- the catalog's code (GC..., OC...), for idempotent imports
  placed_by   TEXT,                    -- the catalog's placer name (imports)
  search      TEXT NOT NULL DEFAULT '' -- lower-case name, code and owner, for search
);
CREATE INDEX caches_owner ON caches(owner_id);
CREATE INDEX caches_updated ON caches(updated_at);
CREATE UNIQUE INDEX caches_source_ref ON caches(source, source_ref) WHERE source_ref IS NOT NULL;

-- The map index: only caches on the public map (active or disabled, listed).
CREATE VIRTUAL TABLE caches_geo USING rtree(id, min_lat, max_lat, min_lon, max_lon);
CREATE TRIGGER caches_geo_insert AFTER INSERT ON caches
  WHEN new.status IN ('active', 'disabled') AND new.unlisted = 0 BEGIN
  INSERT INTO caches_geo VALUES (new.id, new.lat, new.lat, new.lon, new.lon);
END;
CREATE TRIGGER caches_geo_update AFTER UPDATE OF lat, lon, status, unlisted ON caches BEGIN
  DELETE FROM caches_geo WHERE id = new.id;
  INSERT INTO caches_geo SELECT new.id, new.lat, new.lat, new.lon, new.lon
    WHERE new.status IN ('active', 'disabled') AND new.unlisted = 0;
END;
CREATE TRIGGER caches_geo_delete AFTER DELETE ON caches BEGIN
  DELETE FROM caches_geo WHERE id = old.id;
END;

-- Logs: finds, DNFs and notes, on native caches (cache_id) or on a mirrored
-- cache of another instance (cache_id NULL, cache_gid names it). tier: a (an
-- RF sighting corroborates it), b (a verified callsign), c (a claim). state:
-- active or withdrawn (the finder's account was erased). corr_position_id is
-- the corroborating position, pinned (positions.find_id) as long as the find.
CREATE TABLE logs (
  id               INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: part of the find record's gid
  cache_id         INTEGER REFERENCES caches(id) ON DELETE CASCADE,
  cache_gid        TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('find', 'dnf', 'note')),
  user_id          INTEGER REFERENCES users(id) ON DELETE SET NULL,
  call             TEXT,                 -- the finder's callsign as logged (NULL once withdrawn)
  base_call        TEXT,
  text             TEXT,
  found_at         INTEGER NOT NULL,     -- when it happened (the finder says), unix ms
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  tier             TEXT NOT NULL DEFAULT 'c' CHECK (tier IN ('a', 'b', 'c')),
  state            TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'withdrawn')),
  via              TEXT NOT NULL,        -- web | ingest | device
  corr_position_id INTEGER,
  corr_igate       TEXT,                 -- the IGate that heard the corroborating position
  corr_distance_m  REAL,
  corr_at          INTEGER,              -- when it was promoted to tier a
  corr_source      TEXT                  -- local | peers (cross-instance quorum)
);
CREATE INDEX logs_cache ON logs(cache_gid, created_at);
CREATE INDEX logs_cache_id ON logs(cache_id);
CREATE INDEX logs_user ON logs(user_id);
CREATE INDEX logs_base_call ON logs(base_call, found_at);
CREATE INDEX logs_created ON logs(created_at);
CREATE INDEX logs_pending ON logs(base_call, found_at) WHERE kind = 'find' AND tier <> 'a' AND state = 'active';
CREATE INDEX logs_igate ON logs(corr_igate) WHERE corr_igate IS NOT NULL;
CREATE INDEX positions_find ON positions(find_id) WHERE find_id IS NOT NULL;

-- Ratings 1-5 and favorites, by finders of the cache.
CREATE TABLE ratings (
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stars      INTEGER NOT NULL CHECK (stars BETWEEN 1 AND 5),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (cache_id, user_id)
);
CREATE TABLE favorites (
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (cache_id, user_id)
);
CREATE INDEX favorites_user ON favorites(user_id);

-- A cache's gallery (images) and audio for stages, stored in the database.
CREATE TABLE media (
  id         INTEGER PRIMARY KEY,
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  user_id    INTEGER REFERENCES users(id) ON DELETE CASCADE,
  type       TEXT NOT NULL,              -- image/jpeg, image/png, image/webp, image/gif, audio/mpeg, audio/ogg, audio/wav
  bytes      BLOB NOT NULL,
  size       INTEGER NOT NULL,
  caption    TEXT,
  sha256     TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX media_cache ON media(cache_id, created_at);
CREATE INDEX media_user ON media(user_id);

-- Audio-cache stages: numbered from 1, each unlocked by its answer, in order.
-- Only a hash of the normalised answer is stored.
CREATE TABLE stages (
  cache_id    INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  n           INTEGER NOT NULL CHECK (n >= 1),
  title       TEXT NOT NULL,
  question    TEXT NOT NULL,            -- shown once the stage before is unlocked
  content     TEXT NOT NULL,            -- revealed when this stage is unlocked
  media_id    INTEGER REFERENCES media(id) ON DELETE SET NULL,  -- audio for the stage
  answer_hash TEXT NOT NULL,
  PRIMARY KEY (cache_id, n)
);
CREATE TABLE stage_unlocks (
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  n          INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (cache_id, user_id, n)
);
CREATE INDEX stage_unlocks_user ON stage_unlocks(user_id);

-- Supporters: confirmed by the operator's backend (POST /api/support/confirm);
-- shown in /api/support only when the account opts in.
CREATE TABLE supporters (
  user_id      INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  confirmed_at INTEGER NOT NULL,
  until        INTEGER,                -- unix ms, NULL = no end
  level        TEXT,
  public       INTEGER NOT NULL DEFAULT 0,
  name         TEXT,                   -- what to show instead of the callsign, if set
  updated_at   INTEGER NOT NULL
);

-- migration 12: federation at work: how each peer was found and how its sync goes, per-peer sync cursors, the verified registry, corroborations asked, hub push cursors

-- found_via: config (FED_PEERS), registry, transitive:<instance>, 44net, submit
-- (a hub's spoke), operator. trust_set_by: who set the current tier (config,
-- discovery, operator, auto). link/feeds: what the last sync negotiated (JSON).
ALTER TABLE peers ADD COLUMN found_via TEXT;
ALTER TABLE peers ADD COLUMN trust_set_by TEXT;
ALTER TABLE peers ADD COLUMN last_sync_at INTEGER;
ALTER TABLE peers ADD COLUMN last_sync_ok_at INTEGER;
ALTER TABLE peers ADD COLUMN last_error TEXT;
ALTER TABLE peers ADD COLUMN sync_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE peers ADD COLUMN link TEXT;
ALTER TABLE peers ADD COLUMN feeds TEXT;

-- Where the pull of each of a peer's feeds stands: the `next` of the last page
-- applied, written in the same transaction as that page's frames.
CREATE TABLE peer_cursors (
  peer_id    INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
  type       INTEGER NOT NULL,
  cursor     INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (peer_id, type)
) WITHOUT ROWID;

-- The registry (FED_REGISTRY or the FED_REGISTRY_DNS anchor) as last verified:
-- entries bind an instance to keys and operators. One source row.
CREATE TABLE fed_registry (
  instance   TEXT PRIMARY KEY,
  keys       TEXT NOT NULL,              -- JSON [base64url]
  operators  TEXT NOT NULL,              -- JSON [callsign]
  aprs_call  TEXT,
  endpoints  TEXT NOT NULL DEFAULT '[]', -- JSON typed endpoints (re-validated on load)
  fetched_at INTEGER NOT NULL
);
CREATE TABLE fed_registry_source (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  source     TEXT NOT NULL,              -- the URL the document came from
  name       TEXT,
  signer_key TEXT NOT NULL,
  signed_at  INTEGER NOT NULL,           -- the document's `at`, unix seconds
  dnssec     INTEGER,                    -- the DNS anchor's AD flag (NULL: no DNS anchor)
  fetched_at INTEGER NOT NULL,
  error      TEXT                        -- the last refresh's problem (the verified entries stay)
);

-- Finds this instance asked its peers to corroborate (no personal data here:
-- the call and the cache come from the log when asking again).
CREATE TABLE corroborations (
  log_id     INTEGER PRIMARY KEY REFERENCES logs(id) ON DELETE CASCADE,
  state      TEXT NOT NULL CHECK (state IN ('pending', 'confirmed', 'unconfirmed')),
  attempts   INTEGER NOT NULL DEFAULT 0,
  asked_at   INTEGER NOT NULL,
  next_at    INTEGER,                    -- when to ask again (pending only)
  decided_at INTEGER
);
CREATE INDEX corroborations_next ON corroborations(next_at) WHERE state = 'pending';
CREATE TABLE corroboration_answers (
  log_id            INTEGER NOT NULL REFERENCES corroborations(log_id) ON DELETE CASCADE,
  peer_id           INTEGER NOT NULL REFERENCES peers(id) ON DELETE CASCADE,
  heard             INTEGER NOT NULL,
  distance_bucket_m INTEGER,
  time_bucket       INTEGER,
  igate             TEXT,                -- only when both instances reveal IGates
  answered_at       INTEGER NOT NULL,
  PRIMARY KEY (log_id, peer_id)
) WITHOUT ROWID;

-- Where pushing this instance's feed to its hub (FED_HUB_URL) stands, per type.
CREATE TABLE push_cursors (
  target     TEXT NOT NULL,
  type       INTEGER NOT NULL,
  cursor     INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (target, type)
) WITHOUT ROWID;

-- migration 13: coarse cache counts per 1° and 5° cell, for clustering large map views without reading every cache

-- One row per (cell size in degrees, column, row) holding map-visible caches
-- (active or disabled, listed): how many, and the sums of their coordinates
-- (for the centre). Kept by the triggers below, so a world view reads a few
-- thousand rows instead of every cache.
CREATE TABLE caches_cells (
  size INTEGER NOT NULL,               -- 1 or 5 (degrees)
  cx   INTEGER NOT NULL,               -- floor((lon + 180) / size)
  cy   INTEGER NOT NULL,               -- floor((lat + 90) / size)
  n    INTEGER NOT NULL,
  slat REAL NOT NULL,
  slon REAL NOT NULL,
  PRIMARY KEY (size, cx, cy)
) WITHOUT ROWID;
INSERT INTO caches_cells (size, cx, cy, n, slat, slon)
  SELECT s.size, CAST(floor((c.lon + 180) / s.size) AS INTEGER), CAST(floor((c.lat + 90) / s.size) AS INTEGER), count(*), sum(c.lat), sum(c.lon)
  FROM caches c, (SELECT 1 AS size UNION ALL SELECT 5) s WHERE c.status IN ('active', 'disabled') AND c.unlisted = 0 GROUP BY 1, 2, 3;
CREATE TRIGGER caches_cells_insert AFTER INSERT ON caches
  WHEN new.status IN ('active', 'disabled') AND new.unlisted = 0 BEGIN
  INSERT INTO caches_cells (size, cx, cy, n, slat, slon)
    SELECT s.size, CAST(floor((new.lon + 180) / s.size) AS INTEGER), CAST(floor((new.lat + 90) / s.size) AS INTEGER), 1, new.lat, new.lon
    FROM (SELECT 1 AS size UNION ALL SELECT 5) s WHERE true
    ON CONFLICT (size, cx, cy) DO UPDATE SET n = n + 1, slat = slat + excluded.slat, slon = slon + excluded.slon;
END;
CREATE TRIGGER caches_cells_delete AFTER DELETE ON caches
  WHEN old.status IN ('active', 'disabled') AND old.unlisted = 0 BEGIN
  UPDATE caches_cells SET n = n - 1, slat = slat - old.lat, slon = slon - old.lon
    WHERE (size = 1 AND cx = CAST(floor((old.lon + 180) / 1) AS INTEGER) AND cy = CAST(floor((old.lat + 90) / 1) AS INTEGER))
       OR (size = 5 AND cx = CAST(floor((old.lon + 180) / 5) AS INTEGER) AND cy = CAST(floor((old.lat + 90) / 5) AS INTEGER));
  DELETE FROM caches_cells WHERE n <= 0;
END;
CREATE TRIGGER caches_cells_update AFTER UPDATE OF lat, lon, status, unlisted ON caches BEGIN
  UPDATE caches_cells SET n = n - 1, slat = slat - old.lat, slon = slon - old.lon
    WHERE old.status IN ('active', 'disabled') AND old.unlisted = 0
      AND ((size = 1 AND cx = CAST(floor((old.lon + 180) / 1) AS INTEGER) AND cy = CAST(floor((old.lat + 90) / 1) AS INTEGER))
        OR (size = 5 AND cx = CAST(floor((old.lon + 180) / 5) AS INTEGER) AND cy = CAST(floor((old.lat + 90) / 5) AS INTEGER)));
  DELETE FROM caches_cells WHERE n <= 0;
  INSERT INTO caches_cells (size, cx, cy, n, slat, slon)
    SELECT s.size, CAST(floor((new.lon + 180) / s.size) AS INTEGER), CAST(floor((new.lat + 90) / s.size) AS INTEGER), 1, new.lat, new.lon
    FROM (SELECT 1 AS size UNION ALL SELECT 5) s WHERE new.status IN ('active', 'disabled') AND new.unlisted = 0
    ON CONFLICT (size, cx, cy) DO UPDATE SET n = n + 1, slat = slat + excluded.slat, slon = slon + excluded.slon;
END;

-- migration 14: remote box commands and NET/ROM routes

-- Commands for an operator's box (the ingest box, or "local": this gateway's
-- own radio): queued, leased by the box (a lease that runs out returns the
-- command to queued; after 5 leases it is expired), then acknowledged with
-- the box's verdict. Pruned 30 days after they were created.
CREATE TABLE box_commands (
  id          INTEGER PRIMARY KEY,
  box         TEXT NOT NULL,
  kind        TEXT NOT NULL,
  args        TEXT NOT NULL DEFAULT '{}',   -- JSON, validated per kind
  transmit    INTEGER NOT NULL DEFAULT 0,   -- 1: the kind puts something on the air
  call        TEXT,                         -- transmit kinds: the verified callsign it acts as
  state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'leased', 'acknowledged', 'expired')),
  attempts    INTEGER NOT NULL DEFAULT 0,   -- leases so far
  lease_until INTEGER,
  ok          INTEGER,                      -- acknowledged: 1 done, 0 failed
  result      TEXT,                         -- JSON the box reported with its ack
  user_id     INTEGER REFERENCES users(id) ON DELETE SET NULL,
  via         TEXT NOT NULL,                -- session | ingest: how it was enqueued
  created_at  INTEGER NOT NULL,
  leased_at   INTEGER,
  done_at     INTEGER
);
CREATE INDEX box_commands_due ON box_commands(box, state, id);
CREATE INDEX box_commands_created ON box_commands(created_at);

-- NET/ROM routes: the neighbour to send a node's traffic to, learnt from NODES
-- broadcasts heard on a radio port (source heard: refreshed by each broadcast,
-- pruned 6 hours after the last) or set by the sysop (source manual: kept).
CREATE TABLE netrom_routes (
  dest       TEXT NOT NULL,                 -- the node's callsign
  alias      TEXT NOT NULL DEFAULT '',
  neighbour  TEXT NOT NULL,                 -- the adjacent node we hand its traffic to
  port       TEXT NOT NULL DEFAULT '',      -- the radio port the neighbour is on ('' = any)
  quality    INTEGER NOT NULL CHECK (quality BETWEEN 0 AND 255),
  source     TEXT NOT NULL CHECK (source IN ('heard', 'manual')),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (dest, neighbour)
);
CREATE INDEX netrom_routes_alias ON netrom_routes(alias);
CREATE INDEX netrom_routes_updated ON netrom_routes(updated_at);

-- migration 15: the station map index as a B-tree over 0.1-degree latitude bands and longitude, instead of an R*Tree

-- A moving station changed R*Tree cell on nearly every beacon, and an R*Tree
-- delete and insert cost more than all the other writes of its packet. A
-- B-tree entry (latitude band, longitude) moves for the price of an ordinary
-- index update, and only when the position really changed. A map box reads
-- one longitude range per 0.1° band it spans, then checks the exact latitude.
DROP TRIGGER stations_geo_insert;
DROP TRIGGER stations_geo_update;
DROP TRIGGER stations_geo_delete;
DROP TABLE stations_geo;
ALTER TABLE stations ADD COLUMN lat_band INTEGER GENERATED ALWAYS AS (CAST(floor(lat * 10) AS INTEGER)) VIRTUAL;
CREATE INDEX stations_map ON stations(lat_band, lon);

-- migration 16: the store-and-forward BBS: messages, BIDs seen, White Pages, forwarding partners, rules and queue

-- Personal mail (P), bulletins (B) and NTS traffic (T). A killed message keeps
-- its row (and BID) with the text wiped until the pruner takes it.
CREATE TABLE bbs_messages (
  id            INTEGER PRIMARY KEY,
  type          TEXT NOT NULL CHECK (type IN ('P', 'B', 'T')),
  bid           TEXT NOT NULL UNIQUE,    -- BID/MID, upper-case, 1-12 characters
  from_call     TEXT NOT NULL,
  to_call       TEXT NOT NULL,           -- addressee (P), category (B), NTS destination (T)
  at_bbs        TEXT,                    -- hierarchical route or flood area; NULL = this BBS only
  subject       TEXT NOT NULL,
  body          TEXT NOT NULL,
  route         TEXT NOT NULL DEFAULT '',-- R: lines, newest first, LF-separated
  size          INTEGER NOT NULL,        -- bytes of R: lines + body as sent
  origin        TEXT NOT NULL,           -- local | fbb | box
  received_from TEXT,                    -- the partner BBS it came from
  delivery      TEXT NOT NULL CHECK (delivery IN ('local', 'transit', 'unrouted')),
  thread_id     INTEGER,
  reply_to      INTEGER,
  created_at    INTEGER NOT NULL,
  read_at       INTEGER,
  killed_at     INTEGER,
  killed_by     TEXT
);
CREATE INDEX bbs_messages_to ON bbs_messages(to_call, type, created_at);
CREATE INDEX bbs_messages_from ON bbs_messages(from_call, created_at);
CREATE INDEX bbs_messages_type ON bbs_messages(type, created_at);
CREATE INDEX bbs_messages_thread ON bbs_messages(thread_id);
CREATE INDEX bbs_messages_killed ON bbs_messages(killed_at) WHERE killed_at IS NOT NULL;

-- Every BID/MID stored or refused as a duplicate, kept BBS_BID_TTL_DAYS so a
-- pruned bulletin is not taken again.
CREATE TABLE bbs_bids (
  bid     TEXT PRIMARY KEY,
  seen_at INTEGER NOT NULL
);
CREATE INDEX bbs_bids_seen ON bbs_bids(seen_at);

-- White Pages: callsign -> home BBS, from forwarded WP update messages and
-- from message headers.
CREATE TABLE bbs_wp (
  call        TEXT PRIMARY KEY,
  home_bbs    TEXT NOT NULL,             -- hierarchical address of the home BBS
  zip         TEXT,
  name        TEXT,
  qth         TEXT,
  source      TEXT NOT NULL CHECK (source IN ('U', 'G', 'I')),  -- user-given, guessed, from R: lines
  info_at     INTEGER NOT NULL,          -- date of the information
  updated_at  INTEGER NOT NULL
);
CREATE INDEX bbs_wp_updated ON bbs_wp(updated_at);

-- Forwarding partners (adjacent BBSes).
CREATE TABLE bbs_partners (
  id              INTEGER PRIMARY KEY,
  call            TEXT NOT NULL UNIQUE,  -- the partner BBS's callsign
  protocol        TEXT NOT NULL CHECK (protocol IN ('fbb-b1', 'fbb-ascii')),
  transport       TEXT NOT NULL CHECK (transport IN ('tcp', 'box', 'ax25')),
  host            TEXT,                  -- tcp: host and port we call
  port            INTEGER,
  password        TEXT,                  -- tcp: telnet password both ways (optional)
  interval_min    INTEGER NOT NULL,      -- minutes between our calls
  time_bands      TEXT NOT NULL,         -- JSON ["HH:MM-HH:MM", ...] UTC; [] = any time
  types           TEXT NOT NULL,         -- message types offered to it, e.g. PBT
  poll            INTEGER NOT NULL DEFAULT 0,   -- call even with nothing to send
  enabled         INTEGER NOT NULL DEFAULT 1,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  last_attempt_at INTEGER,
  last_success_at INTEGER,
  last_error      TEXT
);

-- Forwarding rules: which messages go to which partner.
CREATE TABLE bbs_rules (
  id         INTEGER PRIMARY KEY,
  partner_id INTEGER NOT NULL REFERENCES bbs_partners(id) ON DELETE CASCADE,
  field      TEXT NOT NULL CHECK (field IN ('at', 'to')),  -- match the @ route or the to-field
  pattern    TEXT NOT NULL,            -- an element (N0BBS, #NCA, USA, NOAM, WW), a prefix (SM*), or *
  types      TEXT NOT NULL,            -- message types it applies to
  priority   INTEGER NOT NULL DEFAULT 100,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX bbs_rules_partner ON bbs_rules(partner_id);

-- What is offered to which partner, and what became of it.
CREATE TABLE bbs_queue (
  message_id INTEGER NOT NULL REFERENCES bbs_messages(id) ON DELETE CASCADE,
  partner_id INTEGER NOT NULL REFERENCES bbs_partners(id) ON DELETE CASCADE,
  state      TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'rejected', 'refused', 'error')),
  attempts   INTEGER NOT NULL DEFAULT 0,
  queued_at  INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (message_id, partner_id)
);
CREATE INDEX bbs_queue_pending ON bbs_queue(partner_id, state, queued_at);

-- migration 17: watch-alert digests: each account's cursor over the logs, and every digest made, so none is sent twice

-- Logs up to last_log_id have gone into a digest of the account; last_at spaces
-- its digests an hour or a day apart (notify_prefs.digest).
CREATE TABLE watch_digest_state (
  user_id     INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  last_log_id INTEGER NOT NULL,
  last_at     INTEGER NOT NULL
);

-- One digest per account and channel. A digest is marked sending before it
-- goes out and sent after; one found sending when the task starts was cut off
-- mid-send (the process died) and becomes unknown: never sent again.
-- pending (to send; also after a refusal, until attempts run out), sending,
-- sent, failed (gave up, or nothing left to send), unknown.
CREATE TABLE watch_digests (
  id         INTEGER PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  channel    TEXT NOT NULL CHECK (channel IN ('email', 'push')),
  log_ids    TEXT NOT NULL,           -- JSON array of the log ids it reports
  state      TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'unknown')),
  attempts   INTEGER NOT NULL DEFAULT 0,
  error      TEXT,
  created_at INTEGER NOT NULL,
  sent_at    INTEGER
);
CREATE INDEX watch_digests_open ON watch_digests(state) WHERE state IN ('pending', 'sending');
CREATE INDEX watch_digests_user ON watch_digests(user_id);
CREATE INDEX watch_digests_created ON watch_digests(created_at);

-- migration 18: ax25 forwarding partners: the call-SSID we connect to and the digipeaters on the way

-- ax25_call: where we connect, and the only call-SSID whose connections we
-- take as this partner (NULL: its call). via: JSON ["RELAY", "WIDE2-1"], [] = direct.
ALTER TABLE bbs_partners ADD COLUMN ax25_call TEXT;
ALTER TABLE bbs_partners ADD COLUMN via TEXT NOT NULL DEFAULT '[]';

-- migration 19: how far a heard APRS message proves its source sent it; the account audit log

-- proof: radio | box | internet | device | relayed (src/core/events.ts HeardProof);
-- NULL for messages stored before it was kept (they answer no challenge).
ALTER TABLE aprs_messages ADD COLUMN proof TEXT CHECK (proof IN ('radio', 'box', 'internet', 'device', 'relayed'));

-- What changed who holds a callsign, for the sysop (GET /api/admin/audit) and
-- for the account that lost it (GET /auth/callsigns lists its losses).
-- kind: verified (a challenge or the operator verified a call), taken_over
-- (the call was verified by another account, whose claim went).
CREATE TABLE audit_log (
  id              INTEGER PRIMARY KEY,
  at              INTEGER NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('verified', 'taken_over')),
  call            TEXT NOT NULL,
  user_id         INTEGER REFERENCES users(id) ON DELETE SET NULL,
  subject_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  detail          TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_at ON audit_log(at);
CREATE INDEX audit_log_user ON audit_log(user_id);
CREATE INDEX audit_log_subject ON audit_log(subject_user_id);

-- migration 20: an index on every foreign-key column that had none, so deleting a user, a media file or a peer (an account erase) does not scan these tables

CREATE INDEX device_keys_user ON device_keys(user_id);
CREATE INDEX webauthn_challenges_user ON webauthn_challenges(user_id);
CREATE INDEX aprs_outbox_user ON aprs_outbox(user_id);
CREATE INDEX ratings_user ON ratings(user_id);
CREATE INDEX stages_media ON stages(media_id);
CREATE INDEX corroboration_answers_peer ON corroboration_answers(peer_id);
CREATE INDEX box_commands_user ON box_commands(user_id);

-- migration 21: endpoints a peer was learnt by (onboarding, configuration, a registry), kept apart from what it says of itself

-- learnt_endpoints: JSON ["transport:address;priority"] learnt from someone
-- other than the peer (44net onboarding, the operator, a registry, another
-- peer's registry view). The peer's own peer record replaces only what it
-- said of itself; these are merged back in, so they are never lost.
ALTER TABLE peers ADD COLUMN learnt_endpoints TEXT NOT NULL DEFAULT '[]';
UPDATE peers SET learnt_endpoints = (SELECT json_group_array(value) FROM json_each(peers.endpoints) WHERE value LIKE 'ampr:%') WHERE verified_via = 'coord-lot';

-- migration 22: a client's own name for a log (clientId), so a log kept offline and retried is stored once

-- client_id: chosen by the client (a UUID) when it first tries to send the
-- log; a second POST with the same one from the same callsign returns the
-- first log. NULL for logs sent without one.
ALTER TABLE logs ADD COLUMN client_id TEXT;
CREATE UNIQUE INDEX logs_client ON logs(base_call, client_id) WHERE client_id IS NOT NULL;

-- migration 23: a full-text index of caches for the header search, which scanned every cache

-- caches_text: the words of caches.search (lower-case name, code, owner) and
-- caches.description, kept by the triggers below; the text itself stays in
-- caches (external content). /api/search matches words by prefix ("water"
-- finds "Waterfall"), accents folded; detail=none keeps the index small.
CREATE VIRTUAL TABLE caches_text USING fts5(search, description, content='caches', content_rowid='id', tokenize='unicode61 remove_diacritics 2', detail=none);
CREATE TRIGGER caches_text_insert AFTER INSERT ON caches BEGIN
  INSERT INTO caches_text(rowid, search, description) VALUES (new.id, new.search, new.description);
END;
CREATE TRIGGER caches_text_update AFTER UPDATE OF search, description ON caches BEGIN
  INSERT INTO caches_text(caches_text, rowid, search, description) VALUES ('delete', old.id, old.search, old.description);
  INSERT INTO caches_text(rowid, search, description) VALUES (new.id, new.search, new.description);
END;
CREATE TRIGGER caches_text_delete AFTER DELETE ON caches BEGIN
  INSERT INTO caches_text(caches_text, rowid, search, description) VALUES ('delete', old.id, old.search, old.description);
END;
INSERT INTO caches_text(caches_text) VALUES ('rebuild');

-- migration 24: the messaging screen's alerts: callsigns a user watches (told when one is heard) and emergencies heard (Mic-E "Emergency", the \! symbol) for the map's banner

CREATE TABLE callsign_watches (
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  call          TEXT NOT NULL,           -- upper-case, with its SSID if one was given (without: any SSID)
  created_at    INTEGER NOT NULL,
  last_alert_at INTEGER,                 -- one alert per call and user per WATCH_ALERT_MS
  PRIMARY KEY (user_id, call)
);
CREATE INDEX callsign_watches_call ON callsign_watches(call);
CREATE TABLE emergencies (
  id      INTEGER PRIMARY KEY,
  call    TEXT NOT NULL,
  ts      INTEGER NOT NULL,
  lat     REAL,
  lon     REAL,
  reason  TEXT NOT NULL,                 -- mic-e | symbol
  comment TEXT
);
CREATE INDEX emergencies_ts ON emergencies(ts);
CREATE INDEX emergencies_call ON emergencies(call, ts);

-- migration 25: trackables (travel bugs): native ones and their moves, other instances' as mirrors, and travel bugs kept from GPX imports

-- Trackables made on this instance. ref: the public code on the tag
-- ("SVT" + 6 base-36 characters, random). code_hash: scrypt of the secret
-- tracking code salted with the ref (docs/protocol.md "Trackables"); the code
-- itself is shown once, when the trackable is made, and never stored.
CREATE TABLE trackables (
  id          INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: part of the gid
  ref         TEXT NOT NULL UNIQUE,
  owner_id    INTEGER REFERENCES users(id) ON DELETE SET NULL,
  owner_call  TEXT NOT NULL,
  name        TEXT NOT NULL,
  goal        TEXT,
  description TEXT,
  code_hash   TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX trackables_owner ON trackables(owner_id);

-- Moves logged on this instance, of any instance's trackable. at: when it
-- happened, unix ms in whole seconds (the wire's unit), so the order of moves
-- is the same here and on every peer. lat/lon: the cache's position for a
-- move into, out of or at a cache (the journey and its distance).
CREATE TABLE trackable_moves (
  id              INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: part of the move record's gid
  trackable_gid   TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('drop', 'retrieve', 'grab', 'discover', 'visit', 'note', 'missing')),
  user_id         INTEGER REFERENCES users(id) ON DELETE SET NULL,
  call            TEXT NOT NULL,
  cache_gid       TEXT,
  lat             REAL,
  lon             REAL,
  text            TEXT,
  at              INTEGER NOT NULL,
  tier            TEXT NOT NULL CHECK (tier IN ('a', 'b', 'c')),
  corr_igate      TEXT,
  corr_distance_m REAL,
  created_at      INTEGER NOT NULL
);
CREATE INDEX trackable_moves_trackable ON trackable_moves(trackable_gid, at);
CREATE INDEX trackable_moves_user ON trackable_moves(user_id);

CREATE TABLE mirror_trackables (
  gid         TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin      TEXT NOT NULL,
  ref         TEXT NOT NULL,
  name        TEXT NOT NULL,
  goal        TEXT,
  description TEXT,
  owner_call  TEXT NOT NULL,
  owner_account TEXT,
  code_hash   TEXT NOT NULL,
  created_at  INTEGER NOT NULL           -- unix ms
);
CREATE INDEX mirror_trackables_ref ON mirror_trackables(ref);

CREATE TABLE mirror_trackable_moves (
  gid           TEXT PRIMARY KEY REFERENCES mirror_records(gid) ON DELETE CASCADE,
  origin        TEXT NOT NULL,
  trackable_gid TEXT NOT NULL,
  kind          TEXT NOT NULL,
  call          TEXT NOT NULL,
  account       TEXT,
  cache_gid     TEXT,
  lat           REAL,
  lon           REAL,
  text          TEXT,
  tier          TEXT,
  at            INTEGER NOT NULL         -- unix ms
);
CREATE INDEX mirror_trackable_moves_trackable ON mirror_trackable_moves(trackable_gid, at);

-- Travel bugs listed in an imported GPX file (groundspeak:travelbugs) that
-- are not trackables of the network: kept with their cache, listed only.
CREATE TABLE cache_travelbugs (
  cache_id INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  ref      TEXT NOT NULL,
  tb_id    TEXT,
  name     TEXT NOT NULL,
  PRIMARY KEY (cache_id, ref)
);

-- migration 26: trackable moves waiting for an RF position of their mover (Tier A later, as finds)
CREATE INDEX trackable_moves_pending ON trackable_moves(call, at) WHERE tier <> 'a' AND lat IS NOT NULL;

-- migration 27: trackable moves by cache, for which trackables are in a cache (its page, its GPX, ?cache=)
CREATE INDEX trackable_moves_cache ON trackable_moves(cache_gid) WHERE cache_gid IS NOT NULL;
CREATE INDEX mirror_trackable_moves_cache ON mirror_trackable_moves(cache_gid) WHERE cache_gid IS NOT NULL;

-- migration 28: a player's own notes and corrected coordinates of a cache (a mystery's solved final): per user, never federated
CREATE TABLE personal_notes (
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  cache_gid  TEXT NOT NULL,               -- the cache, any origin
  note       TEXT,                        -- the player's own note, at most 2,000 characters
  lat        REAL,                        -- corrected coordinates: both or neither
  lon        REAL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, cache_gid),
  CHECK ((lat IS NULL) = (lon IS NULL))
);

-- migration 29: bookmark lists: a user's named lists of caches, private or public (a shareable link), on this instance only
CREATE TABLE cache_lists (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  public     INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX cache_lists_user ON cache_lists(user_id);
CREATE TABLE cache_list_items (
  list_id   INTEGER NOT NULL REFERENCES cache_lists(id) ON DELETE CASCADE,
  cache_gid TEXT NOT NULL,
  added_at  INTEGER NOT NULL,
  PRIMARY KEY (list_id, cache_gid)
);

-- migration 30: a cache's waypoints (parking, stages, question, trailhead, reference point, final), set by its owner or kept from a GPX import
CREATE TABLE cache_waypoints (
  id         INTEGER PRIMARY KEY,
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL,               -- parking, physical-stage, virtual-stage, question, trailhead, reference, final
  prefix     TEXT NOT NULL,               -- two characters: the waypoint's code is this plus the cache code's tail (PK + 1ABCD)
  name       TEXT NOT NULL,               -- at most 100 characters
  lat        REAL,                        -- both or neither
  lon        REAL,
  note       TEXT,                        -- at most 500 characters
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (cache_id, prefix),
  CHECK ((lat IS NULL) = (lon IS NULL))
);

-- migration 31: cache attributes (the Groundspeak yes/no set, src/lib/cache-attributes.ts): a JSON list of signed ids ordered by id, +id yes, -id no ([1,-32]); NULL when none
ALTER TABLE caches ADD COLUMN attributes TEXT;
ALTER TABLE mirror_caches ADD COLUMN attributes TEXT;

-- migration 32: log kinds of maintenance and events (issue 29, items 5 and 6), a cache's open-maintenance flag, the review queue and reports
-- logs.kind widens: SQLite changes a CHECK only by rebuilding the table, and
-- with foreign keys on (they cannot be turned off inside the migration's
-- transaction) dropping the old table cascades into the corroborations that
-- reference it: those are set aside and put back. The AUTOINCREMENT counter
-- moves over, so a deleted log's id (part of a find record's gid) is never reused.
CREATE TABLE logs_new (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  cache_id         INTEGER REFERENCES caches(id) ON DELETE CASCADE,
  cache_gid        TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('find', 'dnf', 'note', 'needs-maintenance', 'needs-archive', 'owner-maintenance',
                     'temp-disable', 'enable', 'archive', 'reviewer-note', 'will-attend', 'attended')),
  user_id          INTEGER REFERENCES users(id) ON DELETE SET NULL,
  call             TEXT,
  base_call        TEXT,
  text             TEXT,
  found_at         INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  tier             TEXT NOT NULL DEFAULT 'c' CHECK (tier IN ('a', 'b', 'c')),
  state            TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'withdrawn')),
  via              TEXT NOT NULL,
  corr_position_id INTEGER,
  corr_igate       TEXT,
  corr_distance_m  REAL,
  corr_at          INTEGER,
  corr_source      TEXT,
  client_id        TEXT
);
INSERT INTO logs_new SELECT id, cache_id, cache_gid, kind, user_id, call, base_call, text, found_at, created_at, updated_at, tier, state, via,
  corr_position_id, corr_igate, corr_distance_m, corr_at, corr_source, client_id FROM logs;
DELETE FROM sqlite_sequence WHERE name = 'logs_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'logs_new', seq FROM sqlite_sequence WHERE name = 'logs';
CREATE TABLE m32_corroborations AS SELECT * FROM corroborations;
CREATE TABLE m32_corroboration_answers AS SELECT * FROM corroboration_answers;
DROP TABLE logs;
ALTER TABLE logs_new RENAME TO logs;
INSERT INTO corroborations SELECT * FROM m32_corroborations;
INSERT INTO corroboration_answers SELECT * FROM m32_corroboration_answers;
DROP TABLE m32_corroborations;
DROP TABLE m32_corroboration_answers;
CREATE INDEX logs_cache ON logs(cache_gid, created_at);
CREATE INDEX logs_cache_id ON logs(cache_id);
CREATE INDEX logs_user ON logs(user_id);
CREATE INDEX logs_base_call ON logs(base_call, found_at);
CREATE INDEX logs_created ON logs(created_at);
CREATE INDEX logs_pending ON logs(base_call, found_at) WHERE kind = 'find' AND tier <> 'a' AND state = 'active';
CREATE INDEX logs_igate ON logs(corr_igate) WHERE corr_igate IS NOT NULL;
CREATE UNIQUE INDEX logs_client ON logs(base_call, client_id) WHERE client_id IS NOT NULL;
-- needs_maintenance: a needs-maintenance or needs-archive log is open (until owner-maintenance or enable).
-- review (REVIEW=on): a draft waiting for a reviewer (queued) or sent back with a reviewer note (returned).
ALTER TABLE caches ADD COLUMN needs_maintenance INTEGER NOT NULL DEFAULT 0;
ALTER TABLE caches ADD COLUMN review TEXT CHECK (review IN ('queued', 'returned'));
CREATE INDEX caches_review ON caches(review) WHERE review IS NOT NULL;
-- A user's report of a cache (one per user and cache; a new one replaces it): its owner and the reviewers read them.
CREATE TABLE cache_reports (
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  call       TEXT,                        -- the reporter's active callsign then
  reason     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (cache_id, user_id)
);
CREATE INDEX cache_reports_user ON cache_reports(user_id);

-- migration 33: event caches (issue 29, item 5): when an event or cito cache takes place, and in which time zone
ALTER TABLE caches ADD COLUMN event_start_at INTEGER;  -- unix ms
ALTER TABLE caches ADD COLUMN event_end_at INTEGER;    -- unix ms
ALTER TABLE caches ADD COLUMN time_zone TEXT;          -- IANA name, e.g. Europe/Berlin
CREATE INDEX caches_event_end ON caches(event_end_at) WHERE event_end_at IS NOT NULL;

-- migration 34: the logs a GPX file brought with an imported cache (another catalog's: written again by its GPX export, counted nowhere, never federated)
CREATE TABLE catalog_logs (
  cache_id   INTEGER NOT NULL REFERENCES caches(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,  -- newest first, as kept
  kind       TEXT NOT NULL,     -- a log kind (find, dnf, note, needs-maintenance, will-attend, ...)
  finder     TEXT NOT NULL,     -- the catalog's name of its writer
  text       TEXT NOT NULL,
  logged_at  INTEGER NOT NULL,  -- unix ms
  PRIMARY KEY (cache_id, seq)
) WITHOUT ROWID;
