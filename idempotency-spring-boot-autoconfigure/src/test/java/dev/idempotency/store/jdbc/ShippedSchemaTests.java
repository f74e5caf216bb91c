package dev.idempotency.store.jdbc;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ShippedSchema}: the scripts of a platform are parsed once and shared, immutable; each
 * instance applies its own table name.
 */
class ShippedSchemaTests {

	@Test
	void thePlatformsScriptsAreParsedOnceForEveryTableName() {
		ShippedSchema shipped = ShippedSchema.of("h2", "idempotency_record");
		ShippedSchema renamed = ShippedSchema.of("h2", "dedup");
		assertThat(shipped).isNotNull();
		assertThat(renamed).isNotNull();
		assertThat(ShippedSchema.scripts("h2")).containsSame(ShippedSchema.scripts("h2").orElseThrow());
		assertThat(shipped.columns()).isEqualTo(renamed.columns());
		assertThat(shipped.indexes()).extracting(ShippedSchema.Index::name)
			.containsExactly("idempotency_record_expires_at_idx", "idempotency_record_unfinished_idx");
		assertThat(renamed.indexes()).extracting(ShippedSchema.Index::name)
			.containsExactly("dedup_expires_at_idx", "dedup_unfinished_idx");
		assertThat(renamed.indexes()).extracting(ShippedSchema.Index::createStatement)
			.allSatisfy((statement) -> assertThat(statement).contains(" ON dedup (")
				.doesNotContain("idempotency_record"));
		assertThat(renamed.addColumn("fingerprint")).contains("dedup").doesNotContain("idempotency_record");
	}

	@Test
	void concurrentStartsShareOneParse() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<CompletableFuture<ShippedSchema.Scripts>> parses = IntStream.range(0, 8)
				.mapToObj((i) -> CompletableFuture.supplyAsync(() -> {
					awaitQuietly(start);
					return ShippedSchema.scripts("mariadb").orElseThrow();
				}, threads))
				.toList();
			start.countDown();
			ShippedSchema.Scripts first = parses.get(0).get();
			assertThat(parses).allSatisfy((parse) -> assertThat(parse.get()).isSameAs(first));
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void theSharedParseCannotBeChanged() {
		ShippedSchema.Scripts scripts = ShippedSchema.scripts("postgresql").orElseThrow();
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> scripts.columns().put("extra", "extra TEXT"));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> scripts.addColumn().remove("fingerprint"));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> scripts.indexes().clear());
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> ShippedSchema.of("postgresql", "dedup").indexes().clear());
	}

	@Test
	void aPlatformWithoutScriptsHasNoShippedSchema() {
		assertThat(ShippedSchema.of("oracle", "idempotency_record")).isNull();
		assertThat(ShippedSchema.scripts("oracle")).isEmpty();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
