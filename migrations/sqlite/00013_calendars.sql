-- Exclusion calendars (issue 28): an owner's named sets of excluded days, and which
-- series name which calendar.
--
-- calendars: one row per (owner, name), a handful per owner, written by the owner now
-- and then, read whole per owner by a dispatcher (which caches them and reads them
-- again when the "calendars" cluster state changes) and by a create that names one.
-- exclusions: the dates, weekdays and ranges as one JSON object, read and written
-- whole, never queried inside. created_at, updated_at: unix milliseconds.
--
-- series_calendars: one row per calendar a series names, written with the series
-- (create, and an update that changes its exclude_calendars), so that "does a series
-- use this calendar?" is a walk of the primary key's (owner, calendar) range, joined to
-- the alarms by primary key to leave out finished and deleted ones: never a scan of
-- the alarms. A calendar edit touches none of it: the series read the calendar when an
-- occurrence comes due. Deleting a calendar deletes its rows.

-- +goose Up
CREATE TABLE calendars (
    owner      TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    timezone   TEXT    NOT NULL,
    exclusions TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (owner, name)
) STRICT;

CREATE TABLE series_calendars (
    owner     TEXT NOT NULL,
    calendar  TEXT NOT NULL,
    series_id TEXT NOT NULL,
    PRIMARY KEY (owner, calendar, series_id)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE series_calendars;
DROP TABLE calendars;
