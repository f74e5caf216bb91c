package dev.idempotency.support;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimTokensTests {

	@Test
	void tokensAreUniqueAcrossConcurrentCallers() throws Exception {
		ClaimTokens tokens = new ClaimTokens();
		Set<String> seen = ConcurrentHashMap.newKeySet();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			for (int t = 0; t < 4; t++) {
				executor.submit(() -> {
					for (int i = 0; i < 10_000; i++) {
						seen.add(tokens.get());
					}
				});
			}
		}
		finally {
			executor.shutdown();
			assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(seen).hasSize(40_000);
	}

	@Test
	void twoInstancesNeverShareATokenPrefix() {
		String first = new ClaimTokens().get();
		String second = new ClaimTokens().get();
		assertThat(first).isNotEqualTo(second);
		assertThat(first.substring(0, first.indexOf('-'))).isNotEqualTo(second.substring(0, second.indexOf('-')))
			.hasSize(24);
	}

}
