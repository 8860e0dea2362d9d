// Command referto runs the referto tournament ledger: `serve` starts the
// HTTP API over JetStream and Pebble; see `referto help` for the others.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal kills at once
	}()
	ownerOnly()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		// Usage errors and failed verifications have been reported already.
		if !errors.Is(err, errUsage) && !errors.Is(err, errVerify) {
			fmt.Fprintln(os.Stderr, "referto:", err)
		}
		os.Exit(1)
	}
}
