/**
 * Auto-configuration of the JDBC store: the store on the application's {@code DataSource}, its
 * properties, the dedup table's schema initializer and the detector that orders its users after it,
 * the purge job and the reconciliation scan of leased claims.
 */
@NullMarked
package dev.idempotency.store.jdbc.autoconfigure;

import org.jspecify.annotations.NullMarked;
