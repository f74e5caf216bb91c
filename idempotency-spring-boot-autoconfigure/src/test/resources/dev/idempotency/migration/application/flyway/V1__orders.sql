-- An application's own first migration, applied before it adds the starter's location.
CREATE TABLE app_orders (id INT NOT NULL PRIMARY KEY, total INT NOT NULL);
