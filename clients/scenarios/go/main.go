// The short scenario of every generated client, through openapi-generator's
// Go clients (modules github.com/switchboard/platform and .../billing,
// generated from the committed documents with enumClassPrefix=true): a token;
// a secure form created, read, listed and deleted; voicebots; the channel
// instances with include=info; with a partner token, site 10000, its
// subscriptions, a calculateNew preview and the product feature points.
//
//	go run . http://127.0.0.1:8080
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/switchboard/billing"
	"github.com/switchboard/platform"
)

func expect(ok bool, what string, err error) {
	if !ok || err != nil {
		fmt.Fprintf(os.Stderr, "openapi-generator go: %s (%v)\n", what, err)
		os.Exit(1)
	}
}

func main() {
	base := os.Args[1]
	ctx := context.Background()

	cfg := platform.NewConfiguration()
	cfg.Servers = platform.ServerConfigurations{{URL: base + "/v4"}}
	api := platform.NewAPIClient(cfg)
	tokens, _, err := api.AuthenticationAPI.CreatePlatformToken(ctx).GrantType("password").
		Email("admin@site10000.example").Password("demo-password").Execute()
	expect(err == nil, "a platform token", err)
	auth := context.WithValue(ctx, platform.ContextAccessToken, tokens.AccessToken)
	field := platform.NewSecureFormFieldInput("card", platform.FIELDTYPE_CARD_NUMBER)
	input := platform.NewSecureFormInput("#0a0", []platform.SecureFormFieldInput{*field}, "<p>Hi</p>", "Generated go", "Pay")
	created, _, err := api.SecureFormsAPI.CreateSecureForm(auth).SecureFormInput(*input).Execute()
	expect(err == nil, "create a form", err)
	read, _, err := api.SecureFormsAPI.GetSecureForm(auth, created.Id).Execute()
	expect(err == nil && read.Name == "Generated go", "read the form back", err)
	page, _, err := api.SecureFormsAPI.ListSecureForms(auth).PageSize(100).Execute()
	listed := false
	for _, f := range page.SecureForms {
		listed = listed || f.Id == created.Id
	}
	expect(err == nil && listed, "the form is listed", err)
	_, err = api.SecureFormsAPI.DeleteSecureForm(auth, created.Id).Execute()
	expect(err == nil, "delete the form", err)
	bots, _, err := api.VoicebotsAPI.ListVoicebots(auth).Execute()
	expect(err == nil && len(bots) >= 1, "the demo voicebot", err)
	instances, _, err := api.VoicebotChannelInstancesAPI.ListVoicebotChannelInstances(auth).Include("info").Execute()
	expect(err == nil && len(instances) >= 1 && instances[0].Info != nil, "a channel instance with its info", err)

	bcfg := billing.NewConfiguration()
	bcfg.Servers = billing.ServerConfigurations{{URL: base}}
	bapi := billing.NewAPIClient(bcfg)
	ptokens, _, err := bapi.AuthenticationAPI.CreatePartnerToken(ctx).GrantType("password").
		Email("admin@partner1.example").Password("demo-password").Execute()
	expect(err == nil, "a partner token", err)
	pauth := context.WithValue(ctx, billing.ContextAccessToken, ptokens.AccessToken)
	site, _, err := bapi.SitesAPI.GetSite(pauth, 10000).Execute()
	expect(err == nil && site.Id == 10000, "site 10000", err)
	subscriptions, _, err := bapi.SubscriptionsAPI.ListSubscriptions(pauth).SiteId(10000).Execute()
	expect(err == nil && len(subscriptions) >= 1, "site 10000's subscriptions", err)
	plan := billing.NewPlanRequest("Platform", 4)
	plan.SetBillingPeriod(billing.BILLINGMONTHS_Monthly)
	preview, _, err := bapi.SubscriptionOperationsAPI.CalculateNewSubscription(pauth).SiteId(10000).
		AgentId("0192f0c4-0000-7000-8000-000000010000").PlanRequest(*plan).Execute()
	expect(err == nil && preview.NewAmount > 0 && preview.SubscriptionId == nil, "a preview", err)
	var amount float64 = preview.NewAmount // money is float64 (--type-mappings=number+decimal=float64), never float32
	_ = amount
	points, _, err := bapi.FeaturePointsAPI.ListProductFeaturePoints(pauth).Execute()
	expect(err == nil && points != nil, "the product feature points", err)
	fmt.Println("    openapi-generator go: every step answered as expected")
}
