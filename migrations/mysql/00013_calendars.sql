-- Exclusion calendars (issue 28): an owner's named sets of excluded days, and which
-- series name which calendar. See docs/schedules.md, "Exclusion calendars".

-- +goose Up

-- One row per (owner, name), a handful per owner: written by the owner now and then,
-- read whole per owner by a dispatcher (which caches them and reads them again when
-- the "calendars" cluster state changes) and by a create that names one. owner and
-- name are VARBINARY like every key here (00001), so the list's order is byte order.
-- exclusions: the dates, weekdays and ranges as one JSON object, MEDIUMTEXT (a
-- thousand dates and a thousand ranges exceed TEXT's 64 KiB), read and written whole.
CREATE TABLE calendars (
    owner      VARBINARY(255) NOT NULL,
    name       VARBINARY(64)  NOT NULL,
    timezone   VARCHAR(64)    NOT NULL,
    exclusions MEDIUMTEXT     NOT NULL,
    created_at DATETIME(6)    NOT NULL,
    updated_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (owner, name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per calendar a series names, written with the series (create, and an update
-- that changes its exclude_calendars): "does a series use this calendar?" walks the
-- primary key's (owner, calendar) range, joined to alarms by primary key to leave out
-- finished and deleted series, never a scan of alarms. A calendar edit touches none of
-- it. Deleting a calendar deletes its rows.
CREATE TABLE series_calendars (
    owner     VARBINARY(255) NOT NULL,
    calendar  VARBINARY(64)  NOT NULL,
    series_id VARBINARY(255) NOT NULL,
    PRIMARY KEY (owner, calendar, series_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- +goose Down
DROP TABLE series_calendars;
DROP TABLE calendars;
