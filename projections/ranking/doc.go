// Package ranking computes the clubs' national ranking of a season
// (docs/rules.md#15-the-national-ranking) from tournaments' verified final
// classifications and the season registry's events (national ids linked,
// ids merged, disqualification periods), under the season's thresholds
// file. It is a pure projection: the same tournaments, registry and file
// give the same ranking, each result saying whether it counts and why not.
package ranking
