-- An application's own seventh migration: the application is at V7 when it adds the starter's location.
ALTER TABLE app_orders ADD note VARCHAR(100);
