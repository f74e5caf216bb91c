package dev.idempotency.redis.stream;

import java.net.InetAddress;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Consumer names unique per application instance: host, process id and a random suffix, so that
 * two instances (or two restarts) never share a consumer and each one's pending entries stay
 * attributable.
 */
final class ConsumerNames {

	private ConsumerNames() {
	}

	static String unique() {
		byte[] random = new byte[3];
		ThreadLocalRandom.current().nextBytes(random);
		return host() + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
	}

	private static String host() {
		String host = System.getenv("HOSTNAME");
		if (host == null || host.isBlank()) {
			try {
				host = InetAddress.getLocalHost().getHostName();
			}
			catch (Exception ex) {
				host = "host";
			}
		}
		return host;
	}

}
