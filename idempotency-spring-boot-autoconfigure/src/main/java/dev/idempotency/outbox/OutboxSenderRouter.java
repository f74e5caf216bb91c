package dev.idempotency.outbox;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Picks the sender of a destination, for one dispatch round: by the destination's prefix
 * ({@link OutboxSender#scheme()} and a colon), else the only sender there is.
 */
final class OutboxSenderRouter {

	private final List<OutboxSender> senders;

	/**
	 * Creates a router over the senders of one round.
	 * @param senders the senders, in order of precedence
	 */
	OutboxSenderRouter(List<OutboxSender> senders) {
		this.senders = senders;
	}

	/**
	 * Routes a destination.
	 * @param destination e.g. {@code kafka:orders}
	 * @return the sender and its target (the destination without the prefix), or {@code null} when
	 * no sender serves it
	 */
	@Nullable Route route(String destination) {
		int colon = destination.indexOf(':');
		if (colon > 0) {
			String scheme = destination.substring(0, colon);
			for (OutboxSender sender : this.senders) {
				if (sender.scheme().equals(scheme)) {
					return new Route(sender, destination.substring(colon + 1));
				}
			}
		}
		return (this.senders.size() == 1) ? new Route(this.senders.get(0), destination) : null;
	}

	/**
	 * Describes why a destination has no route, naming the senders there are.
	 * @param destination the destination {@link #route} found no sender for
	 * @return the failure a row to it dies with
	 */
	IllegalStateException unroutable(String destination) {
		return new IllegalStateException("No OutboxSender serves destination '" + destination + "' (senders: "
				+ this.senders.stream().map(OutboxSender::scheme).toList() + ")");
	}

	/**
	 * Where one message goes.
	 *
	 * @param sender the sender
	 * @param target the destination without the scheme prefix: a topic or a stream key
	 */
	record Route(OutboxSender sender, String target) {

	}

}
