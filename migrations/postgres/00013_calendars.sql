-- Exclusion calendars (issue 28): an owner's named sets of excluded days, and which
-- series name which calendar. See docs/schedules.md, "Exclusion calendars".

-- +goose Up

-- One row per (owner, name), a handful per owner: written by the owner now and then,
-- read whole per owner by a dispatcher (which caches them and reads them again when
-- the "calendars" cluster state changes) and by a create that names one. exclusions:
-- the dates, weekdays and ranges as one JSON object, as text, read and written whole.
CREATE TABLE calendars (
    owner      text COLLATE "C" NOT NULL,
    name       text COLLATE "C" NOT NULL,
    timezone   text NOT NULL,
    exclusions text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (owner, name)
);

-- One row per calendar a series names, written with the series (create, and an update
-- that changes its exclude_calendars): "does a series use this calendar?" walks the
-- primary key's (owner, calendar) range, joined to alarms by primary key to leave out
-- finished and deleted series, never a scan of alarms. A calendar edit touches none of
-- it. Deleting a calendar deletes its rows.
CREATE TABLE series_calendars (
    owner     text COLLATE "C" NOT NULL,
    calendar  text COLLATE "C" NOT NULL,
    series_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (owner, calendar, series_id)
);

-- +goose Down
DROP TABLE series_calendars;
DROP TABLE calendars;
