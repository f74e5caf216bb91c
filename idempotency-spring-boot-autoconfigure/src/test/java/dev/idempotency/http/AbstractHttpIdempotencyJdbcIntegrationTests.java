package dev.idempotency.http;

import com.zaxxer.hikari.HikariDataSource;

import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The HTTP tests on the JDBC store: the schema created afresh once per class, and a business table
 * the payment handler writes in the request's transaction.
 */
abstract class AbstractHttpIdempotencyJdbcIntegrationTests extends AbstractHttpIdempotencyIntegrationTests {

	private HikariDataSource dataSource;

	/** The platform of the schema scripts, e.g. {@code postgresql}. */
	protected abstract String platform();

	@Override
	protected String storeName() {
		return "jdbc";
	}

	@Override
	protected void prepareStore() {
		String url = null;
		String user = null;
		for (String property : storeProperties()) {
			if (property.startsWith("spring.datasource.url=")) {
				url = property.substring("spring.datasource.url=".length());
			}
			if (property.startsWith("spring.datasource.username=")) {
				user = property.substring("spring.datasource.username=".length());
			}
		}
		this.dataSource = DataSourceBuilder.create().type(HikariDataSource.class).url(url).username(user).build();
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(this.dataSource);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.execute("DROP TABLE IF EXISTS http_payment");
		jdbc.execute("CREATE TABLE http_payment (reference VARCHAR(100) NOT NULL, amount BIGINT NOT NULL)");
	}

	@Override
	protected int businessRows(String reference) {
		return new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM http_payment WHERE reference = ?",
				Integer.class, reference);
	}

	@Override
	protected void cleanUpStore() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
	}

}
