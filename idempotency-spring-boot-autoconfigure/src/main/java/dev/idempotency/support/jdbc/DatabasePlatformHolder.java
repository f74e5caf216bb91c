package dev.idempotency.support.jdbc;

/**
 * A component on a {@code DataSource} that already knows its {@link DatabasePlatform} (detected once,
 * or configured), so that others working on that {@code DataSource} take the platform from it
 * instead of detecting it again on a connection of their own.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface DatabasePlatformHolder {

	/**
	 * The platform of this component's {@code DataSource}; opens no connection.
	 * @return the platform, never {@code null}
	 */
	DatabasePlatform getDatabasePlatform();

}
